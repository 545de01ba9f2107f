#include "time/timestamp.h"

#include <catch2/catch.hpp>

namespace logtide {
namespace {

TEST_CASE("formatting uses 3, 6 or 9 fraction digits, none when zero") {
  CHECK(FormatRfc3339(0) == "1970-01-01T00:00:00Z");
  CHECK(FormatRfc3339(1) == "1970-01-01T00:00:00.000000001Z");
  CHECK(FormatRfc3339(1'000) == "1970-01-01T00:00:00.000001Z");
  CHECK(FormatRfc3339(120'000'000) == "1970-01-01T00:00:00.120Z");
  CHECK(FormatRfc3339(-1) == "1969-12-31T23:59:59.999999999Z");
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
