#include "time/time_zone.h"

#include <catch2/catch.hpp>

#include "time/time_format.h"

namespace logtide {
namespace {

constexpr Nanos kS = kNanosPerSecond;

TimeZone Zone(const char* name) {
  TimeZone z;
  Status s = TimeZone::Load(name, &z);
  INFO(s.message());
  REQUIRE(s.ok());
  return z;
}

Nanos Utc(const char* rfc3339) {
  Nanos t = 0;
  REQUIRE(ParseRfc3339(rfc3339, &t).ok());
  return t;
}

// Expectations worked out from the zone rules: Europe/Berlin goes from +01 to +02 at
// 2024-03-31T01:00Z (02:00 local becomes 03:00) and back at 2024-10-27T01:00Z (03:00 becomes
// 02:00); America/Santiago from -04 to -03 at 2024-09-08T04:00Z (24:00 becomes 01:00).

TEST_CASE("FirstInstantOfAUniqueTimeIsItsInstant") {
  TimeZone z = Zone("Europe/Berlin");
  CHECK(z.FirstInstant(absl::CivilSecond(2024, 3, 31, 0, 0, 0)) == Utc("2024-03-30T23:00:00Z"));
  CHECK(z.FirstInstant(absl::CivilSecond(2024, 4, 1, 0, 0, 0)) == Utc("2024-03-31T22:00:00Z"));
}

TEST_CASE("FirstInstantOfASkippedTimeIsTheChange") {
  TimeZone z = Zone("Europe/Berlin");
  CHECK(z.FirstInstant(absl::CivilSecond(2024, 3, 31, 2, 0, 0)) == Utc("2024-03-31T01:00:00Z"));
  CHECK(z.FirstInstant(absl::CivilSecond(2024, 3, 31, 2, 30, 0)) == Utc("2024-03-31T01:00:00Z"));
  TimeZone s = Zone("America/Santiago");
  CHECK(s.FirstInstant(absl::CivilSecond(2024, 9, 8, 0, 0, 0)) == Utc("2024-09-08T04:00:00Z"));
}

TEST_CASE("FirstInstantOfARepeatedTimeIsTheEarlier") {
  TimeZone z = Zone("Europe/Berlin");
  CHECK(z.FirstInstant(absl::CivilSecond(2024, 10, 27, 2, 30, 0)) == Utc("2024-10-27T00:30:00Z"));
}

TEST_CASE("LocalToInstantRefusesASkippedTime") {
  TimeZone z = Zone("Europe/Berlin");
  Nanos t = 0;
  Status s = z.LocalToInstant(absl::CivilSecond(2024, 3, 31, 2, 30, 0), 0, &t);
  REQUIRE(!s.ok());
  CHECK(s.message().find("does not exist in Europe/Berlin") != std::string::npos);
  REQUIRE(z.LocalToInstant(absl::CivilSecond(2024, 10, 27, 2, 30, 0), 250'000'000, &t).ok());
  CHECK(t == Utc("2024-10-27T00:30:00.250Z"));
}

TEST_CASE("AppendLocalRfc3339WritesTheOffsetInForce") {
  const TimeZone berlin = Zone("Europe/Berlin");
  auto local = [&](const TimeZone& z, const char* utc) {
    std::string out = "x";  // appended to, not replaced
    z.AppendLocalRfc3339(Utc(utc), &out);
    return out;
  };
  // CET (+01:00) before 2024-03-31T01:00Z, CEST (+02:00) from then until 2024-10-27T01:00Z.
  CHECK(local(berlin, "2024-03-31T00:59:59Z") == "x2024-03-31T01:59:59+01:00");
  CHECK(local(berlin, "2024-03-31T01:00:00Z") == "x2024-03-31T03:00:00+02:00");
  CHECK(local(berlin, "2024-10-27T00:30:00Z") == "x2024-10-27T02:30:00+02:00");
  CHECK(local(berlin, "2024-10-27T01:30:00Z") == "x2024-10-27T02:30:00+01:00");
  // Fractions as AppendRfc3339 writes them: groups of 3 digits.
  CHECK(local(berlin, "2024-01-01T00:00:00.5Z") == "x2024-01-01T01:00:00.500+01:00");
  CHECK(local(berlin, "2024-01-01T00:00:00.000001Z") == "x2024-01-01T01:00:00.000001+01:00");
  CHECK(local(Zone("Asia/Kolkata"), "2024-01-01T00:00:00Z") == "x2024-01-01T05:30:00+05:30");
  CHECK(local(Zone("UTC"), "2024-01-01T00:00:00Z") == "x2024-01-01T00:00:00+00:00");
  // Before 1970: the fraction of a negative instant.
  CHECK(local(berlin, "1969-12-31T23:59:59.25Z") == "x1970-01-01T00:59:59.250+01:00");
}

TEST_CASE("UnknownZoneIsRefusedByName") {
  TimeZone z;
  Status s = TimeZone::Load("Mars/Olympus", &z);
  REQUIRE(!s.ok());
  CHECK(s.message().find("Mars/Olympus") != std::string::npos);
}

TEST_CASE("TimeFormatWithAZoneReadsTimesWithoutOffsetAsLocal") {
  TimeFormat f;
  REQUIRE(TimeFormat::Create("auto", &f).ok());
  Nanos t = 0;
  CHECK(!f.ParseString("2024-10-27 02:30:00", &t).ok());  // no zone: an offset is required
  f.set_zone(Zone("Asia/Kolkata"));
  REQUIRE(f.ParseString("2024-05-01 16:00:00", &t).ok());
  CHECK(t == Utc("2024-05-01T10:30:00Z"));
  REQUIRE(f.ParseString("2024-05-01T16:00:00+05:30", &t).ok());  // an offset: that instant
  CHECK(t == Utc("2024-05-01T10:30:00Z"));
  REQUIRE(f.ParseString("2024-05-01T10:30:00Z", &t).ok());
  CHECK(t == Utc("2024-05-01T10:30:00Z"));
  CHECK(!f.ParseString("2024-02-30 10:00:00", &t).ok());  // a field out of range
}

TEST_CASE("TimeFormatPatternWithAZone") {
  TimeFormat f;
  REQUIRE(TimeFormat::Create("%d/%m/%Y %H:%M", &f).ok());
  f.set_zone(Zone("America/Santiago"));
  Nanos t = 0;
  REQUIRE(f.ParseString("07/09/2024 23:30", &t).ok());
  CHECK(t == Utc("2024-09-08T03:30:00Z"));
  CHECK(!f.ParseString("08/09/2024 00:30", &t).ok());  // skipped
  TimeFormat g;
  REQUIRE(TimeFormat::Create("%Y-%m-%d %H:%M %z", &g).ok());
  g.set_zone(Zone("America/Santiago"));
  REQUIRE(g.ParseString("2024-09-08 00:30 +0000", &t).ok());  // %z: the offset given
  CHECK(t == Utc("2024-09-08T00:30:00Z"));
}

}  // namespace
}  // namespace logtide
