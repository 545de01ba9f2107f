// CSV and TSV rows converted into JSON objects with their file's header (issue 32).
#include "lineformat/csv.h"

#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "json/json_checker.h"

namespace logtide {
namespace {

std::string Row(const CsvHeader& h, std::string_view line) {
  JsonBuilder b;
  Status s = h.RowToJson(line, nullptr, &b);
  if (!s.ok()) return "BAD: " + s.message();
  return std::string(b.Finish());
}

TEST_CASE("csv: a row's fields under the header's names, typed") {
  const CsvHeader h("ts,level,dur", ',');
  CHECK(h.error().empty());
  CHECK(h.size() == 3);
  CHECK(Row(h, "2024-03-31T00:00:01Z,info,12.5") ==
        R"({"ts":"2024-03-31T00:00:01Z","level":"info","dur":12.5})");
  CHECK(Row(h, "1711843201,warn,-3e2") == R"({"ts":1711843201,"level":"warn","dur":-3e2})");
  CHECK(Row(h, "x,y,007") == R"({"ts":"x","level":"y","dur":"007"})");
}

TEST_CASE("csv: a header that is no UTF-8 makes every row bad, its names being keys") {
  const CsvHeader h("ts,j\xffunk", ',');
  CHECK(h.error() == "the header (line 1) is not valid UTF-8");
  CHECK(Row(h, "1,ok") == "BAD: the header (line 1) is not valid UTF-8");
  const CsvHeader quoted("ts,\"\xc3\"", ',');
  CHECK(Row(quoted, "1,ok") == "BAD: the header (line 1) is not valid UTF-8");
  const CsvHeader tsv("ts\t\xe2\x82", '\t');
  CHECK(Row(tsv, "1\tok") == "BAD: the header (line 1) is not valid UTF-8");
}

TEST_CASE("csv: an empty field is null, a quoted empty field the empty string") {
  const CsvHeader h("a,b,c", ',');
  CHECK(Row(h, ",,") == R"({"a":null,"b":null,"c":null})");
  CHECK(Row(h, "\"\",1,") == R"({"a":"","b":1,"c":null})");
}

TEST_CASE("csv: RFC 4180 quotes: separators inside, doubled quotes, always a string") {
  const CsvHeader h("msg,n", ',');
  CHECK(Row(h, "\"a, b\",\"12\"") == R"({"msg":"a, b","n":"12"})");
  CHECK(Row(h, "\"say \"\"hi\"\"\",1") == R"({"msg":"say \"hi\"","n":1})");
  CHECK(Row(h, "\"\"\"\",1") == R"({"msg":"\"","n":1})");
  CHECK(Row(h, "a\"b,1") == R"({"msg":"a\"b","n":1})");  // a quote inside a bare field
  CHECK(Row(h, " x , 1") == R"({"msg":" x ","n":" 1"})");  // spaces are the field's
  CHECK(Row(h, "back\\slash,\"tab\there\"") == R"({"msg":"back\\slash","n":"tab\there"})");
}

TEST_CASE("csv: unicode in names and fields") {
  const CsvHeader h("\xEF\xBB\xBFstadt,名前", ',');  // a byte order mark before the header
  CHECK(Row(h, "Zürich,日本") == "{\"stadt\":\"Zürich\",\"名前\":\"日本\"}");
}

TEST_CASE("csv: header names are escaped as JSON keys") {
  const CsvHeader h("\"a \"\"q\"\"\",b\\c,\"x,y\"", ',');
  CHECK(h.size() == 3);
  CHECK(Row(h, "1,2,3") == R"({"a \"q\"":1,"b\\c":2,"x,y":3})");
}

TEST_CASE("csv: a row with another number of fields is bad") {
  const CsvHeader h("a,b,c", ',');
  CHECK(Row(h, "1,2") == "BAD: the row has 2 fields, the header (line 1) has 3");
  CHECK(Row(h, "1,2,3,4") == "BAD: the row has 4 fields, the header (line 1) has 3");
  CHECK(Row(h, "1") == "BAD: the row has 1 field, the header (line 1) has 3");
  CHECK(Row(h, "") == "BAD: the row has 1 field, the header (line 1) has 3");
}

TEST_CASE("csv: broken quotes are bad lines, a quoted field spanning lines among them") {
  const CsvHeader h("a,b", ',');
  CHECK(Row(h, "\"open,1") ==
        "BAD: field 1 (from byte 1) has no closing double quote on its line (a quoted field "
        "that spans lines is not read)");
  CHECK(Row(h, "1,\"x\"y") == "BAD: field 2 (from byte 3) has text after its closing double quote, at byte 6");
}

TEST_CASE("csv: a header that is not a row makes every row bad") {
  const CsvHeader h("a,\"b", ',');
  CHECK(!h.error().empty());
  CHECK(Row(h, "1,2") ==
        "BAD: the header (line 1) is not a CSV row: field 2 (from byte 3) has no closing double "
        "quote on its line (a quoted field that spans lines is not read)");
  const CsvHeader u = CsvHeader::Unreadable("the header (line 1) is longer than --max-line-length 10", ',');
  CHECK(Row(u, "1") == "BAD: the header (line 1) is longer than --max-line-length 10");
}

TEST_CASE("tsv: tabs separate, quotes are plain bytes") {
  const CsvHeader h("ts\tlevel\tmsg", '\t');
  CHECK(Row(h, "2024-03-31T00:00:01Z\tinfo\t\"a, b\"") ==
        R"({"ts":"2024-03-31T00:00:01Z","level":"info","msg":"\"a, b\""})");
  CHECK(Row(h, "1\t\t") == R"({"ts":1,"level":null,"msg":null})");
  CHECK(Row(h, "1\t2") == "BAD: the row has 2 fields, the header (line 1) has 3");
}

TEST_CASE("csv: a long row converts whole") {
  const CsvHeader h("a,b", ',');
  std::string field(200000, 'x');
  const std::string j = Row(h, "\"" + field + "\",1");
  CHECK(j == "{\"a\":\"" + field + "\",\"b\":1}");
}

TEST_CASE("csv: whatever converts is valid JSON (random rows)") {
  std::mt19937 rng(4180);
  const std::string alphabet = "a,\"\t1.e-\\ \x02";
  JsonChecker checker;
  int converted = 0;
  for (char sep : {',', '\t'}) {
    const CsvHeader h(sep == ',' ? "x,y,z" : "x\ty\tz", sep);
    for (int i = 0; i < 20000; ++i) {
      std::string line;
      const int n = static_cast<int>(rng() % 16);
      for (int k = 0; k < n; ++k) line += alphabet[rng() % alphabet.size()];
      JsonBuilder b;
      if (!h.RowToJson(line, nullptr, &b).ok()) continue;
      ++converted;
      INFO(line);
      REQUIRE(checker.IsValid(b.Finish()));
    }
  }
  CHECK(converted > 1000);
}

}  // namespace
}  // namespace logtide
