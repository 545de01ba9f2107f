// WindowLabel: the form chosen for each window kind and size, and the text of a window's start
// in its zone, at the daylight-saving and ISO-year boundaries.
#include "window/window_label.h"

#include <catch2/catch.hpp>

#include "time/timestamp.h"

namespace logtide {
namespace {

WindowSpec Spec(const char* window, const char* zone = nullptr) {
  WindowSpec w;
  Status s = ParseWindowSpec(window, &w);
  INFO(s.message());
  REQUIRE(s.ok());
  if (zone != nullptr) {
    TimeZone z;
    REQUIRE(TimeZone::Load(zone, &z).ok());
    s = SetWindowZone(z, &w);
    INFO(s.message());
    REQUIRE(s.ok());
  }
  return w;
}

Nanos At(const char* rfc3339) {
  Nanos t = 0;
  REQUIRE(ParseRfc3339(rfc3339, &t).ok());
  return t;
}

// The label of the window of `spec` that starts at `start`.
std::string LabelOf(const WindowSpec& spec, const char* start) {
  WindowLabel label;
  Status s = WindowLabel::Create(spec, &label);
  INFO(s.message());
  REQUIRE(s.ok());
  std::string out;
  label.Append(At(start), &out);
  return out;
}

std::string Refusal(const WindowSpec& spec) {
  WindowLabel label;
  Status s = WindowLabel::Create(spec, &label);
  REQUIRE_FALSE(s.ok());
  CHECK(s.code() == Status::Code::kInvalidArgument);
  return s.message();
}

TEST_CASE("window label: the 23- and 25-hour Berlin days are labelled by their local dates") {
  const WindowSpec days = Spec("tumbling:1d", "Europe/Berlin");
  CHECK(LabelOf(days, "2024-03-30T23:00:00Z") == "2024-03-31");
  CHECK(LabelOf(days, "2024-10-26T22:00:00Z") == "2024-10-27");
  // The same instant in UTC is still the day before's last hour.
  CHECK(LabelOf(Spec("tumbling:1d"), "2024-03-30T23:00:00Z") == "2024-03-30");
}

TEST_CASE("window label: a day without a midnight is labelled by its date") {
  // America/Santiago 2024-09-08 starts at 01:00 -03 (04:00Z).
  CHECK(LabelOf(Spec("tumbling:1d", "America/Santiago"), "2024-09-08T04:00:00Z") == "2024-09-08");
}

TEST_CASE("window label: weeks carry the ISO week-year, not the calendar year") {
  const WindowSpec weeks = Spec("tumbling:1w");
  CHECK(LabelOf(weeks, "2019-12-30T00:00:00Z") == "2020-W01");
  CHECK(LabelOf(weeks, "2020-12-28T00:00:00Z") == "2020-W53");
  CHECK(LabelOf(weeks, "2021-01-04T00:00:00Z") == "2021-W01");
  CHECK(LabelOf(weeks, "2024-12-30T00:00:00Z") == "2025-W01");
  // Monday 00:00 in Berlin is Sunday 23:00Z: the label is the local week's.
  CHECK(LabelOf(Spec("tumbling:1w", "Europe/Berlin"), "2020-12-27T23:00:00Z") == "2020-W53");
}

TEST_CASE("window label: months and quarters are labelled by their first month") {
  CHECK(LabelOf(Spec("tumbling:1mo", "Europe/Berlin"), "2024-02-29T23:00:00Z") == "2024-03");
  CHECK(LabelOf(Spec("tumbling:3mo"), "2024-04-01T00:00:00Z") == "2024-04");
}

TEST_CASE("window label: sizes under a day give the local start to the minute") {
  CHECK(LabelOf(Spec("tumbling:6h", "Europe/Berlin"), "2024-03-31T04:00:00Z") ==
        "2024-03-31T06:00");
  CHECK(LabelOf(Spec("tumbling:30m", "Asia/Kolkata"), "2024-03-31T00:00:00Z") ==
        "2024-03-31T05:30");
  // Over a day but not whole days (UTC only): to the minute too.
  CHECK(LabelOf(Spec("tumbling:36h"), "2024-03-31T12:00:00Z") == "2024-03-31T12:00");
  // Whole days of fixed length in UTC, from an offset: the start's date.
  CHECK(LabelOf(Spec("tumbling:2d"), "2024-03-31T00:00:00Z") == "2024-03-31");
  CHECK(LabelOf(Spec("tumbling:1d:offset=6h"), "2024-03-31T06:00:00Z") == "2024-03-31");
}

TEST_CASE("window label: a grid off whole minutes gives the start to the second") {
  CHECK(LabelOf(Spec("tumbling:90s"), "2024-03-31T06:01:30Z") == "2024-03-31T06:01:30");
  CHECK(LabelOf(Spec("tumbling:1m:offset=30s"), "2024-03-31T06:00:30Z") == "2024-03-31T06:00:30");
}

TEST_CASE("window label: the two windows of a repeated hour share their local label") {
  const WindowSpec hours = Spec("tumbling:1h", "Europe/Berlin");
  CHECK(LabelOf(hours, "2024-10-27T00:00:00Z") == "2024-10-27T02:00");
  CHECK(LabelOf(hours, "2024-10-27T01:00:00Z") == "2024-10-27T02:00");
}

TEST_CASE("window label: sliding, session and sub-second windows are refused with the reason") {
  CHECK_THAT(Refusal(Spec("sliding:1h:5m")), Catch::Contains("sliding windows overlap"));
  CHECK_THAT(Refusal(Spec("sliding:1h:1h")), Catch::Contains("use tumbling:SIZE"));
  CHECK_THAT(Refusal(Spec("session:30m", "Europe/Berlin")),
             Catch::Contains("bounds are set by its key's events"));
  CHECK_THAT(Refusal(Spec("tumbling:500ms")), Catch::Contains("use whole seconds"));
  CHECK_THAT(Refusal(Spec("tumbling:1m:offset=1500ms")), Catch::Contains("within a second"));
}

TEST_CASE("window label: its form in words") {
  WindowLabel label;
  REQUIRE(WindowLabel::Create(Spec("tumbling:1w"), &label).ok());
  CHECK(label.format() == "%G-W%V");
  CHECK(label.Describe() == "the ISO week-year and week (2024-W13)");
  REQUIRE(WindowLabel::Create(Spec("tumbling:15m"), &label).ok());
  CHECK(label.Describe() == "the local date and time to the minute (2024-03-31T06:00)");
}

}  // namespace
}  // namespace logtide
