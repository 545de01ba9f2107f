// Runs the table in testdata/tables/time_formats.txt, then the cases that are not value
// conversions (building formats).
#include "time/time_format.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "time/timestamp.h"

namespace logtide {
namespace {

std::vector<std::string> Split(const std::string& line, char sep) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    size_t next = line.find(sep, pos);
    out.push_back(line.substr(pos, next == std::string::npos ? std::string::npos : next - pos));
    if (next == std::string::npos) return out;
    pos = next + 1;
  }
}

TEST_CASE("time format table") {
  std::ifstream in(LOGTIDE_TESTDATA "/tables/time_formats.txt");
  REQUIRE(in.good());
  std::string line;
  int cases = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto f = Split(line, '\t');
    REQUIRE(f.size() == 3);
    INFO("table line: " << line);
    TimeFormat format;
    REQUIRE(TimeFormat::Create(f[0], &format).ok());
    Nanos t = 0;
    Status s = f[1][0] == '"' ? format.ParseString(f[1].substr(1, f[1].size() - 2), &t)
                              : format.ParseNumber(f[1], &t);
    if (f[2][0] == '!') {
      REQUIRE_FALSE(s.ok());
      CHECK_THAT(s.message(), Catch::Contains(f[2].substr(1)));
    } else {
      REQUIRE(s.ok());
      CHECK(FormatRfc3339(t) == f[2]);
    }
    ++cases;
  }
  CHECK(cases >= 40);
}

// The kind of a bad time is set where the reason is made (issue 27): a time outside the range
// is kTimeRange however it was written, one that does not fit the format kBadTime.
TEST_CASE("bad times carry their kind") {
  struct Case {
    const char* format;
    const char* text;  // in quotes: a string
    BadKind kind;
  } cases[] = {
      {"epoch_s", "1714557600000000000", BadKind::kTimeRange},  // nanoseconds read as seconds
      {"auto", "1e30", BadKind::kTimeRange},
      {"epoch_ms", "-1e300", BadKind::kTimeRange},
      {"rfc3339", "\"2300-01-01T00:00:00Z\"", BadKind::kTimeRange},
      {"%d/%m/%Y", "\"01/01/2300\"", BadKind::kTimeRange},
      {"%s", "\"99999999999999\"", BadKind::kTimeRange},
      {"epoch_s", "12x", BadKind::kBadTime},
      {"epoch_s", "\"1714557600\"", BadKind::kBadTime},
      {"rfc3339", "1714557600", BadKind::kBadTime},
      {"rfc3339", "\"2024-13-01T00:00:00Z\"", BadKind::kBadTime},
      {"%d/%m/%Y", "\"01-01-2024\"", BadKind::kBadTime},
  };
  for (const Case& c : cases) {
    INFO(c.format << " " << c.text);
    TimeFormat format;
    REQUIRE(TimeFormat::Create(c.format, &format).ok());
    const std::string text = c.text;
    Nanos t = 0;
    const Status s = text[0] == '"' ? format.ParseString(text.substr(1, text.size() - 2), &t)
                                    : format.ParseNumber(text, &t);
    REQUIRE(s.code() == Status::Code::kDataError);
    CHECK(s.bad_kind() == c.kind);
  }
}

// Issue 32, item 9: epoch seconds in a string are read by the pattern %s, and the message says so.
TEST_CASE("epoch_s on a string of epoch seconds points at %s") {
  TimeFormat format;
  REQUIRE(TimeFormat::Create("epoch_s", &format).ok());
  Nanos t = 0;
  for (const char* text : {"1714557600", "-5", "1714557600.25"}) {
    INFO(text);
    const Status s = format.ParseString(text, &t);
    REQUIRE(s.code() == Status::Code::kDataError);
    CHECK_THAT(s.message(), Catch::Contains("use --time-format %s"));
  }
  for (const char* text : {"2024-05-01", "12x", "", "-", "1.2.3"}) {
    INFO(text);
    const Status s = format.ParseString(text, &t);
    REQUIRE(s.code() == Status::Code::kDataError);
    CHECK_THAT(s.message(), !Catch::Contains("%s"));
  }
  TimeFormat pattern;
  REQUIRE(TimeFormat::Create("%s", &pattern).ok());
  REQUIRE(pattern.ParseString("1714557600", &t).ok());
  CHECK(t == 1714557600 * kNanosPerSecond);
}

TEST_CASE("unknown time format names are refused") {
  TimeFormat f;
  Status s = TimeFormat::Create("epoch", &f);
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains("epoch_ms"));
}

TEST_CASE("patterns with an unknown directive are refused") {
  TimeFormat f;
  Status s = TimeFormat::Create("%Y-%m-%d %Q", &f);
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains("%Q"));
}

TEST_CASE("patterns that do not determine a date are refused") {
  TimeFormat f;
  Status s = TimeFormat::Create("%b %d %H:%M:%S", &f);  // syslog: no year
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains("year"));
}

TEST_CASE("auto epoch unit boundaries") {
  CHECK(AutoEpochUnit(99999999999.0) == kNanosPerSecond);
  CHECK(AutoEpochUnit(1e11) == 1'000'000);
  CHECK(AutoEpochUnit(1e14) == 1'000);
  CHECK(AutoEpochUnit(1e17) == 1);
}

}  // namespace
}  // namespace logtide
