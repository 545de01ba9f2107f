#include "time/timestamp.h"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <limits>

namespace logtide {
namespace {

TEST_CASE("formatting uses 3, 6 or 9 fraction digits, none when zero") {
  CHECK(FormatRfc3339(0) == "1970-01-01T00:00:00Z");
  CHECK(FormatRfc3339(1) == "1970-01-01T00:00:00.000000001Z");
  CHECK(FormatRfc3339(1'000) == "1970-01-01T00:00:00.000001Z");
  CHECK(FormatRfc3339(120'000'000) == "1970-01-01T00:00:00.120Z");
  CHECK(FormatRfc3339(-1) == "1969-12-31T23:59:59.999999999Z");
}

// Issue 28, item 12: INT64_MIN overflowed (UBSan) when the fraction was found as
// t - floor(t / 10^9) * 10^9. Expected by hand: INT64_MIN = -9,223,372,036,854,775,808 ns is
// floor -9,223,372,037 s plus 145,224,192 ns; -9,223,372,037 s = -106,752 days (106,751 x 86,400
// = 9,223,286,400, remainder 85,637) plus 86,400 - 85,637 = 763 s = 00:12:43. INT64_MAX is
// 9,223,372,036 s plus 854,775,807 ns, 106,751 days plus 85,636 s = 23:47:16. The dates of day
// -106,752 and 106,751 from 1970-01-01 are Python's date(1970, 1, 1) + timedelta(days=N).
TEST_CASE("formatting the ends of the range and their neighbours (issue 28)") {
  constexpr Nanos kMin = std::numeric_limits<Nanos>::min();
  constexpr Nanos kMax = std::numeric_limits<Nanos>::max();
  CHECK(FormatRfc3339(kMin) == "1677-09-21T00:12:43.145224192Z");
  CHECK(FormatRfc3339(kMin + 1) == "1677-09-21T00:12:43.145224193Z");
  CHECK(FormatRfc3339(kMin + 854'775'808) == "1677-09-21T00:12:44Z");  // the next whole second
  CHECK(FormatRfc3339(kMax) == "2262-04-11T23:47:16.854775807Z");
  CHECK(FormatRfc3339(kMax - 1) == "2262-04-11T23:47:16.854775806Z");
  CHECK(FormatRfc3339(kMax - 854'775'807) == "2262-04-11T23:47:16Z");
}

TEST_CASE("formatting and parsing round-trip across the range") {
  for (Nanos t : {Nanos{0}, Nanos{-14182940} * kNanosPerSecond, Nanos{1'700'000'000'123'456'789},
                  Nanos{-9'000'000'000'000'000'000}, Nanos{9'000'000'000'000'000'000}}) {
    Nanos back = 0;
    REQUIRE(ParseRfc3339(FormatRfc3339(t), &back).ok());
    CHECK(back == t);
  }
}

TEST_CASE("civil times with impossible fields are refused") {
  Nanos t;
  CivilTime c;
  c.year = 2024;
  c.month = 2;
  c.day = 30;
  CHECK_FALSE(CivilToNanos(c, &t).ok());
  c.day = 29;
  CHECK(CivilToNanos(c, &t).ok());
  c.hour = 24;
  CHECK_FALSE(CivilToNanos(c, &t).ok());
}

}  // namespace
}  // namespace logtide

namespace logtide {
namespace {

// ParseRfc3339 has a straight-line fast path with its own calendar arithmetic; it must agree
// with CivilToNanos (std::chrono's calendar) on every date it accepts and refuse invalid ones.
TEST_CASE("the RFC 3339 fast path agrees with the chrono calendar") {
  uint64_t x = 88172645463325252ull;
  auto next = [&] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  int checked = 0;
  Rfc3339Cache cache;
  for (int i = 0; i < 200000; ++i) {
    CivilTime c;
    c.year = 1678 + static_cast<int64_t>(next() % (2261 - 1678 + 1));
    c.month = 1 + static_cast<int>(next() % 12);
    c.day = 1 + static_cast<int>(next() % 31);
    c.hour = static_cast<int>(next() % 24);
    c.minute = static_cast<int>(next() % 60);
    c.second = static_cast<int>(next() % 60);
    c.nanos = static_cast<int64_t>(next() % 3 == 0 ? 0 : next() % kNanosPerSecond);
    c.offset_seconds =
        static_cast<int>(next() % 5 == 0 ? (static_cast<int>(next() % 48) - 24) * 1800 : 0);
    int oh = std::abs(c.offset_seconds) / 3600, om = std::abs(c.offset_seconds) / 60 % 60;
    std::string text = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:09}", c.year, c.month,
                                   c.day, c.hour, c.minute, c.second, c.nanos);
    text += c.offset_seconds == 0
                ? std::string("Z")
                : fmt::format("{}{:02}:{:02}", c.offset_seconds < 0 ? '-' : '+', oh, om);
    Nanos expected = 0, got = 0, cached = 0;
    Status want = CivilToNanos(c, &expected);
    const CivilTime original = c;
    Status have = ParseRfc3339(text, &got);
    Status have_cached = ParseRfc3339(text, &cached, &cache);
    INFO(text);
    REQUIRE(want.ok() == have.ok());
    REQUIRE(want.ok() == have_cached.ok());
    if (want.ok()) {
      REQUIRE(got == expected);
      REQUIRE(cached == expected);
      ++checked;
    }
    // Often the same day again, with another time: the cache's fast case.
    if (want.ok() && i % 2 == 0) {
      std::string later = text;
      later[11] = '0' + static_cast<char>(next() % 2);
      c.hour = (later[11] - '0') * 10 + c.hour % 10;
      REQUIRE(CivilToNanos(c, &expected).ok() == ParseRfc3339(later, &cached, &cache).ok());
      if (c.hour < 24) {
        REQUIRE(cached == expected);
      }
    }
    // Often the same minute again, with another second and fraction: the cache's fast case.
    if (want.ok() && i % 3 == 0) {
      CivilTime m = original;
      m.second = static_cast<int>(next() % 60);
      m.nanos = static_cast<int64_t>(next() % kNanosPerSecond);
      std::string later = text;
      std::string sec = fmt::format("{:02}.{:09}", m.second, m.nanos);
      later.replace(17, sec.size(), sec);
      Status w = CivilToNanos(m, &expected);
      REQUIRE(w.ok() == ParseRfc3339(later, &cached, &cache).ok());
      if (w.ok()) {
        REQUIRE(cached == expected);
      }
    }
  }
  CHECK(checked > 150000);
}

}  // namespace
}  // namespace logtide
