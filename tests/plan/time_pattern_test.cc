#include "plan/time_pattern.h"

#include <catch2/catch.hpp>

#include "time/time_format.h"

namespace logtide {
namespace {

std::string In(SqlDialect dialect, const std::string& pattern) {
  SqlTimePattern t;
  const Status s = TranslateTimePattern(pattern, dialect, &t);
  REQUIRE(s.ok());
  return t.text;
}

std::string Inexact(SqlDialect dialect, const std::string& pattern) {
  SqlTimePattern t;
  REQUIRE(TranslateTimePattern(pattern, dialect, &t).ok());
  return t.inexact;
}

// The expected spellings are DuckDB's "Date Format" table of strptime specifiers and the
// pattern letters of Java's DateTimeFormatter (which Flink's TO_TIMESTAMP takes), one row per
// specifier logtide's --time-format accepts (time/time_format.cc).
struct Row {
  const char* strptime;
  const char* duckdb;
  const char* java;
};
constexpr Row kRows[] = {
    {"%Y", "%Y", "yyyy"},            // year with century; Java: year-of-era, 4 letters
    {"%y", "%y", "yy"},              // year without century; Java: 2 letters, the reduced form
    {"%m", "%m", "MM"},              // month number; Java: M, 2 letters zero-padded
    {"%d", "%d", "dd"},              // day of the month, zero-padded
    {"%e", "%-d", "d"},              // DuckDB has no %e: %-d is the unpadded day; Java: one letter
    {"%H", "%H", "HH"},              // hour 0-23; Java: H hour-of-day
    {"%I", "%I", "hh"},              // hour 1-12; Java: h clock-hour-of-am-pm
    {"%p", "%p", "a"},               // AM or PM; Java: a am-pm-of-day
    {"%M", "%M", "mm"},              // minute; Java: m minute-of-hour
    {"%S", "%S", "ss"},              // second; Java: s second-of-minute
    {"%f", "%f", "SSS"},             // fraction; DuckDB: microseconds; Java: S fraction-of-second
    {"%z", "%z", "xx"},              // UTC offset; Java: x zone-offset, 2 letters +HHMM
    {"%Z", "%Z", "z"},               // zone name; Java: z time-zone name
    {"%b", "%b", "MMM"},             // abbreviated month name; Java: 3 letters, short text
    {"%h", "%b", "MMM"},             // DuckDB has no %h, the same as %b
    {"%B", "%B", "MMMM"},            // full month name; Java: 4 letters, full text
    {"%a", "%a", "EEE"},             // abbreviated weekday; Java: E day-of-week, short text
    {"%A", "%A", "EEEE"},            // full weekday name; Java: full text
    {"%T", "%H:%M:%S", "HH:mm:ss"},  // composites: neither dialect has them
    {"%F", "%Y-%m-%d", "yyyy-MM-dd"},
    {"%D", "%m/%d/%y", "MM/dd/yy"},
    {"%R", "%H:%M", "HH:mm"},
    {"%%", "%%", "%"},  // a literal percent sign: DuckDB %%; Java: not a letter, as it is
};

TEST_CASE("every specifier in DuckDB's and in Java's spelling") {
  for (const Row& r : kRows) {
    INFO(r.strptime);
    CHECK(In(SqlDialect::kDuckDb, r.strptime) == r.duckdb);
    CHECK(In(SqlDialect::kFlink, r.strptime) == r.java);
  }
}

TEST_CASE("the table holds every directive TimeFormat takes, and nothing else") {
  for (int c = 0x21; c < 0x7f; ++c) {
    const std::string spec = std::string("%Y-%m-%d %") + static_cast<char>(c);
    TimeFormat f;
    const bool known = TimeFormat::Create(spec, &f).ok();
    INFO(spec);
    bool in_table = c == 's';  // refused by both, by name
    for (const Row& r : kRows) in_table |= r.strptime[1] == c;
    CHECK(known == in_table);
    SqlTimePattern t;
    const Status s = TranslateTimePattern(spec, SqlDialect::kDuckDb, &t);
    if (!known) CHECK_THAT(s.message(), Catch::Contains("unknown directive"));
  }
}

TEST_CASE("seconds since 1970 are refused by name in both dialects") {
  for (SqlDialect d : {SqlDialect::kDuckDb, SqlDialect::kFlink}) {
    SqlTimePattern t;
    const Status s = TranslateTimePattern("%s", d, &t);
    REQUIRE(!s.ok());
    CHECK(s.code() == Status::Code::kInvalidArgument);
    CHECK_THAT(s.message(), Catch::StartsWith("%s: ") && Catch::Contains("epoch_s"));
  }
}

TEST_CASE("text around the specifiers: kept for DuckDB, letters and quotes quoted for Java") {
  const std::string nginx = "%d/%b/%Y:%H:%M:%S %z";
  CHECK(In(SqlDialect::kDuckDb, nginx) == nginx);
  CHECK(In(SqlDialect::kFlink, nginx) == "dd/MMM/yyyy:HH:mm:ss xx");
  // DateTimeFormatter: unquoted letters are pattern letters; '' is a single quote.
  CHECK(In(SqlDialect::kDuckDb, "%Y-%m-%dT%H:%M:%S'Z'") == "%Y-%m-%dT%H:%M:%S'Z'");
  CHECK(In(SqlDialect::kFlink, "%Y-%m-%dT%H:%M:%S'Z'") == "yyyy-MM-dd'T'HH:mm:ss'''Z'''");
  // Inside a quoted section '' is a quote too: letters side by side share one section, as
  // 'a''t' would read as a't.
  CHECK(In(SqlDialect::kFlink, "at %F") == "'at' yyyy-MM-dd");
  CHECK(In(SqlDialect::kFlink, "o'clock %H") == "'o''clock' HH");
  // [ ] open and close an optional section; { } # are reserved: quoted, as a letter is.
  CHECK(In(SqlDialect::kDuckDb, "[%F %T]") == "[%Y-%m-%d %H:%M:%S]");
  CHECK(In(SqlDialect::kFlink, "[%F %T]") == "'['yyyy-MM-dd HH:mm:ss']'");
  CHECK(In(SqlDialect::kFlink, "%Y#%m{%d}") == "yyyy'#'MM'{'dd'}'");
}

TEST_CASE("a lone percent sign or an unknown directive is an error, not a pattern") {
  SqlTimePattern t;
  CHECK(TranslateTimePattern("%Y %", SqlDialect::kDuckDb, &t).code() ==
        Status::Code::kInvalidArgument);
  CHECK_THAT(TranslateTimePattern("%Y %Q", SqlDialect::kFlink, &t).message(),
             Catch::Contains("unknown directive %Q"));
}

TEST_CASE("the specifiers Java reads differently are named, once each, in pattern order") {
  CHECK(Inexact(SqlDialect::kFlink, "%Y-%m-%d %H:%M:%S").empty());
  CHECK(Inexact(SqlDialect::kFlink, "%d/%b/%Y:%H:%M:%S %z") == "%z");
  CHECK(Inexact(SqlDialect::kFlink, "%Z %F %T.%f %z %f") == "%Z, %f and %z");
  // yy: "the base value of 2000, resulting in a year within the range 2000 to 2099", where
  // logtide (as DuckDB's %y) reads 69 to 99 as 1969 to 1999.
  CHECK(Inexact(SqlDialect::kFlink, "%y-%m-%d") == "%y");
  CHECK(Inexact(SqlDialect::kFlink, "%D %T") == "%D");
  CHECK(Inexact(SqlDialect::kDuckDb, "%D %y").empty());
  CHECK(Inexact(SqlDialect::kDuckDb, "%Z %F %T.%f %z").empty());
}

}  // namespace
}  // namespace logtide
