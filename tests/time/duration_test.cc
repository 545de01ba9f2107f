#include "time/duration.h"

#include <catch2/catch.hpp>

namespace logtide {
namespace {

Nanos Parse(const char* text) {
  Nanos d = -1;
  Status s = ParseDuration(text, &d);
  INFO(text << ": " << s.message());
  REQUIRE(s.ok());
  return d;
}

std::string Error(const char* text) {
  Nanos d;
  Status s = ParseDuration(text, &d);
  REQUIRE_FALSE(s.ok());
  return s.message();
}

TEST_CASE("durations in every unit") {
  CHECK(Parse("250ms") == 250'000'000);
  CHECK(Parse("30s") == 30'000'000'000);
  CHECK(Parse("5m") == 300'000'000'000);
  CHECK(Parse("1h") == 3'600'000'000'000);
  CHECK(Parse("1d") == 86'400'000'000'000);
  CHECK(Parse("7ns") == 7);
  CHECK(Parse("7us") == 7'000);
  CHECK(Parse("7\xC2\xB5s") == 7'000);
  CHECK(Parse("0") == 0);
  CHECK(Parse("0s") == 0);
}

TEST_CASE("compound durations add up, and ms is not m followed by s") {
  CHECK(Parse("1h30m") == 5'400'000'000'000);
  CHECK(Parse("1m30s") == 90'000'000'000);
  CHECK(Parse("1s500ms") == 1'500'000'000);
}

TEST_CASE("fractional durations, to the nanosecond") {
  CHECK(Parse("1.5s") == 1'500'000'000);
  CHECK(Parse("0.25ms") == 250'000);
  CHECK(Parse("1.5m") == 90'000'000'000);
  CHECK(Parse("0.001s") == 1'000'000);
  CHECK(Parse("0.000000001s") == 1);
  CHECK(Parse("2.5us") == 2'500);
  CHECK(Parse("1h0.5m") == 3'630'000'000'000);
}

TEST_CASE("bad durations name the problem") {
  CHECK_THAT(Error(""), Catch::Contains("empty"));
  CHECK_THAT(Error("5"), Catch::Contains("missing unit"));
  CHECK_THAT(Error("5x"), Catch::Contains("unknown unit"));
  CHECK_THAT(Error("-5s"), Catch::Contains("negative"));
  CHECK_THAT(Error("1.5ns"), Catch::Contains("finer than a nanosecond"));
  CHECK_THAT(Error("1.s"), Catch::Contains("digits after the '.'"));
  CHECK_THAT(Error(".5s"), Catch::Contains("expected a number"));
  CHECK_THAT(Error("1.0000000001s"), Catch::Contains("more than 9 digits"));
  CHECK_THAT(Error("0.5"), Catch::Contains("missing unit"));
  CHECK_THAT(Error("m"), Catch::Contains("expected a number"));
  CHECK_THAT(Error("999999999999d"), Catch::Contains("too large"));
}

TEST_CASE("durations format in their shortest form") {
  CHECK(FormatDuration(0) == "0s");
  CHECK(FormatDuration(Parse("90m")) == "1h30m");
  CHECK(FormatDuration(Parse("250ms")) == "250ms");
  CHECK(FormatDuration(Parse("1d1s")) == "1d1s");
  CHECK(FormatDuration(1500) == "1500ns");
}


TEST_CASE("durations rounded for messages: a tenth of the largest unit, parseable again") {
  const Nanos s = kNanosPerSecond;
  CHECK(FormatDurationRounded(0, true) == "0s");
  CHECK(FormatDurationRounded(2'734'000'000, true) == "2.8s");
  CHECK(FormatDurationRounded(2'734'000'000, false) == "2.7s");
  CHECK(FormatDurationRounded(3 * s, true) == "3s");
  CHECK(FormatDurationRounded(734'250'000, true) == "734.3ms");
  CHECK(FormatDurationRounded(4320 * s, true) == "1.2h");
  CHECK(FormatDurationRounded(90 * s, true) == "1.5m");
  CHECK(FormatDurationRounded(7, true) == "7ns");
  CHECK(FormatDurationRounded(59'990'000'000, false) == "1m");
  CHECK(FormatDurationRounded(59'990'000'000, true) == "1m");
  // Rounded up, it is never less than the value, and it parses back.
  uint64_t x = 2463534242ull;
  for (int i = 0; i < 2000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const Nanos d = static_cast<Nanos>(x % (400ull * 86400 * 1'000'000'000ull)) >> (x % 40);
    Nanos back = -1;
    REQUIRE(ParseDuration(FormatDurationRounded(d, true), &back).ok());
    CHECK(back >= d);
  }
}

}  // namespace
}  // namespace logtide
