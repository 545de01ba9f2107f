#include "window/window_spec.h"

#include <catch2/catch.hpp>

namespace logtide {
namespace {

constexpr Nanos kS = kNanosPerSecond;

WindowSpec Parse(const char* text) {
  WindowSpec w;
  Status s = ParseWindowSpec(text, &w);
  INFO(s.message());
  REQUIRE(s.ok());
  return w;
}

std::string Error(const char* text) {
  WindowSpec w;
  Status s = ParseWindowSpec(text, &w);
  REQUIRE_FALSE(s.ok());
  return s.message();
}

TEST_CASE("window specs parse and print back") {
  CHECK(Parse("tumbling:5m").ToString() == "tumbling:5m");
  CHECK(Parse("sliding:1h:1m").ToString() == "sliding:1h:1m");
  CHECK(Parse("session:30s").ToString() == "session:30s");
  CHECK(Parse("tumbling:90s").slide == 90 * kS);
}

TEST_CASE("bad window specs name the rule") {
  CHECK_THAT(Error("tumbling"), Catch::Contains("one duration"));
  CHECK_THAT(Error("tumbling:0s"), Catch::Contains("greater than 0"));
  CHECK_THAT(Error("sliding:1m:5m"), Catch::Contains("slide must not exceed size"));
  CHECK_THAT(Error("sliding:1m"), Catch::Contains("two durations"));
  CHECK_THAT(Error("hopping:1m"), Catch::Contains("unknown window kind"));
  // Issue 32, item 9: Flink's hopping window is sliding here, and the message says so.
  CHECK_THAT(Error("hopping:1h:5m"), Catch::Contains("sliding:SIZE:SLIDE"));
  CHECK_THAT(Error("hop:1h:5m"), Catch::Contains("sliding:SIZE:SLIDE"));
  CHECK_THAT(Error("rolling:1h"), !Catch::Contains("a slide is sliding"));
  CHECK_THAT(Error("session:x"), Catch::Contains("gap"));
}

TEST_CASE("a spec with more windows per event than the cap is refused (issue 16)") {
  // sliding:1000d:1ms wrote 41 GB from 11 input lines.
  CHECK_THAT(Error("sliding:1000d:1ms"),
             Catch::Contains("86400000000 windows") && Catch::Contains("at most 100000"));
  // At the cap: 100000 windows per event; one past it (rounded up) is refused.
  CHECK(Parse("sliding:100000s:1s").size == 100000 * kS);
  CHECK_THAT(Error("sliding:100001s:1s"), Catch::Contains("100001 windows"));
  CHECK_THAT(Error("sliding:100000001ms:1s"), Catch::Contains("100001 windows"));
  // Sizes and gaps stay within 100 years, so window ends stay inside the time range.
  CHECK(Parse("tumbling:36500d").size == Nanos{36500} * 86400 * kS);
  CHECK_THAT(Error("tumbling:36501d"), Catch::Contains("at most 100 years"));
  CHECK_THAT(Error("session:36501d"), Catch::Contains("gap must be at most 100 years"));
  CHECK_THAT(Error("sliding:36501d:1d"), Catch::Contains("size must be at most 100 years"));
}

TEST_CASE("tumbling: an event on a boundary starts the next window") {
  WindowSpec w = Parse("tumbling:1m");
  CHECK(w.LastWindowStart(60 * kS) == 60 * kS);
  CHECK(w.LastWindowStart(60 * kS - 1) == 0);
  CHECK(w.LastWindowEnd(59 * kS) == 60 * kS);
}

TEST_CASE("tumbling before 1970 floors, not truncates") {
  WindowSpec w = Parse("tumbling:1m");
  CHECK(w.LastWindowStart(-1) == -60 * kS);
  CHECK(w.LastWindowStart(-60 * kS) == -60 * kS);
  CHECK(w.LastWindowStart(-61 * kS) == -120 * kS);
}

TEST_CASE("sliding: windows holding t are the starts k*slide in (t - size, t]") {
  WindowSpec w = Parse("sliding:10s:3s");
  CHECK(w.pane() == 1 * kS);
  // t = 7s: windows start at 0, 3, 6 (start -3 ends at 7, which excludes t).
  CHECK(w.NextEndAfter(7 * kS) - w.size == 0);
  CHECK(w.LastWindowStart(7 * kS) == 6 * kS);
  CHECK(w.LastWindowEnd(7 * kS) == 16 * kS);
  // t = 6.5s: the window [-3s, 7s) holds it.
  CHECK(w.NextEndAfter(6500 * kS / 1000) - w.size == -3 * kS);
}

TEST_CASE("pane is gcd of size and slide") {
  CHECK(Parse("sliding:1h:1m").pane() == 60 * kS);
  CHECK(Parse("sliding:10m:4m").pane() == 120 * kS);
  CHECK(Parse("tumbling:5m").pane() == 300 * kS);
}

TEST_CASE("a window is late once the watermark reaches end + lateness") {
  CHECK_FALSE(IsWindowLate(100, 10, 109));
  CHECK(IsWindowLate(100, 10, 110));
  CHECK(IsWindowLate(100, 0, 100));
  CHECK_FALSE(IsWindowLate(kPlusInfinity, 10, kPlusInfinity - 1));
}

}  // namespace
}  // namespace logtide

namespace logtide {
namespace {

WindowSpec Zoned(const char* window, const char* zone) {
  WindowSpec w;
  REQUIRE(ParseWindowSpec(window, &w).ok());
  TimeZone z;
  REQUIRE(TimeZone::Load(zone, &z).ok());
  Status s = SetWindowZone(z, &w);
  INFO(s.message());
  REQUIRE(s.ok());
  return w;
}

Nanos At(const char* rfc3339) {
  Nanos t = 0;
  REQUIRE(ParseRfc3339(rfc3339, &t).ok());
  return t;
}

// The bounds, worked out by hand from Europe/Berlin's changes (2024-03-31T01:00Z to +02,
// 2024-10-27T01:00Z back to +01).
TEST_CASE("CalendarDayAcrossSpringForwardIs23Hours") {
  WindowSpec w = Zoned("tumbling:1d", "Europe/Berlin");
  const WindowSpec::Bounds b = w.Window(At("2024-03-31T12:00:00Z"));
  CHECK(b.start == At("2024-03-30T23:00:00Z"));
  CHECK(b.end == At("2024-03-31T22:00:00Z"));
  CHECK(w.NextEndAfter(At("2024-03-31T12:00:00Z")) == b.end);
  CHECK(w.StartOfWindowEnding(b.end) == b.start);
  CHECK(w.PaneStart(b.end) == b.end);
}

TEST_CASE("CalendarWallClockWindowHoldsTheRepeatedHour") {
  WindowSpec w = Zoned("tumbling:2h", "Europe/Berlin");
  // 02:30 CET (the second 02:30) is in 02:00-04:00 local: from 02:00 CEST to 04:00 CET.
  const WindowSpec::Bounds b = w.Window(At("2024-10-27T01:30:00Z"));
  CHECK(b.start == At("2024-10-27T00:00:00Z"));
  CHECK(b.end == At("2024-10-27T03:00:00Z"));
}

TEST_CASE("CalendarWindowsTileTime") {
  // Consecutive windows meet, and every time is in the window found for it, over a year of
  // Berlin, Santiago and Lord Howe in steps of 17 minutes.
  for (const char* zone : {"Europe/Berlin", "America/Santiago", "Australia/Lord_Howe"}) {
    for (const char* size : {"1d", "6h", "90m", "1h", "30m", "1w", "1mo"}) {
      std::string spec = std::string("tumbling:") + size;
      WindowSpec w = Zoned(spec.c_str(), zone);
      Nanos prev_end = 0;
      for (Nanos t = At("2024-01-01T00:00:00Z"); t < At("2025-01-01T00:00:00Z");
           t += 17 * 60 * kS) {
        const WindowSpec::Bounds b = w.Window(t);
        INFO(zone << " " << size << " at " << FormatRfc3339(t));
        REQUIRE(b.start <= t);
        REQUIRE(t < b.end);
        if (prev_end != 0 && b.start != w.Window(t - 17 * 60 * kS).start)
          REQUIRE(b.start == prev_end);
        prev_end = b.end;
      }
    }
  }
}

TEST_CASE("ZoneRefusesSlidingAndSizesTheCalendarCannotHold") {
  TimeZone z;
  REQUIRE(TimeZone::Load("Europe/Berlin", &z).ok());
  for (const char* bad : {"sliding:1h:10m", "tumbling:5h", "tumbling:36h", "tumbling:7m"}) {
    WindowSpec w;
    REQUIRE(ParseWindowSpec(bad, &w).ok());
    INFO(bad);
    CHECK(!SetWindowZone(z, &w).ok());
  }
  WindowSpec w;
  REQUIRE(ParseWindowSpec("session:30m", &w).ok());
  CHECK(SetWindowZone(z, &w).ok());
  CHECK(!w.is_calendar());
}

}  // namespace
}  // namespace logtide
