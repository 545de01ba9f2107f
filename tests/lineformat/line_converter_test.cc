// The members a query reads (issue 32's speed): a converted line's object holds only the keys
// of its KeySet, and a line is refused exactly as when it holds them all.
#include "lineformat/line_converter.h"

#include <simdjson.h>

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

namespace logtide {
namespace {

// The members of the JSON object `json` whose key is one of `keys`, minified, in order; "BAD"
// when it is no JSON object.
std::string Members(std::string_view json, const std::vector<std::string>& keys) {
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  if (parser.parse(std::string(json)).get(o)) return "BAD";
  std::string out;
  for (auto field : o) {
    bool wanted = false;
    for (const std::string& k : keys) wanted |= k == field.key;
    if (wanted) out += std::string(field.key) + "=" + simdjson::to_string(field.value) + ";";
  }
  return out;
}

// The object of `line` converted with `keys` (empty: all), or "BAD: reason".
std::string Convert(LineConverter* c, InputFormat f, const CsvHeader* h, std::string_view line) {
  std::string_view json;
  Status s = c->Convert(f, h, line, &json);
  return s.ok() ? std::string(json) : "BAD: " + s.message();
}

TEST_CASE("line converter: only the keys read, in their order, from logfmt and CSV") {
  LineConverter c;
  c.set_keys(KeySet({"ts", "b"}));
  CHECK(Convert(&c, InputFormat::kLogfmt, nullptr, R"(a="x y" ts=1 flag b=two c= b=3)") ==
        R"({"ts":1,"b":"two","b":3})");
  CHECK(Convert(&c, InputFormat::kLogfmt, nullptr, "a=1 c=2") == "{}");
  const CsvHeader h("a,ts,b", ',');
  CHECK(Convert(&c, InputFormat::kCsv, &h, R"("x,""y",5,)") == R"({"ts":5,"b":null})");
  // Another header, through the same converter: its own columns.
  const CsvHeader other("b,z", ',');
  CHECK(Convert(&c, InputFormat::kCsv, &other, "7,8") == R"({"b":7})");
  CHECK(Convert(&c, InputFormat::kCsv, &h, "1,2,3") == R"({"ts":2,"b":3})");
}

TEST_CASE("line converter: a pair left out still breaks the line as it would") {
  LineConverter all, some;
  some.set_keys(KeySet({"ts"}));
  for (const char* line : {R"(ts=1 msg="no end)", R"(ts=1 msg="a"b)", R"(ts=1 "q"=1)", R"(ts=1 =1)",
                           R"(ts=1 msg="a\")", R"(ts=1 msg="a\\")", "{\"ts\":1}"}) {
    CAPTURE(line);
    const std::string want = Convert(&all, InputFormat::kLogfmt, nullptr, line);
    CHECK(Convert(&some, InputFormat::kLogfmt, nullptr, line).substr(0, 4) == want.substr(0, 4));
    if (want.rfind("BAD", 0) == 0)
      CHECK(Convert(&some, InputFormat::kLogfmt, nullptr, line) == want);
  }
  // Bytes left out are UTF-8 all the same, as in an NDJSON line (the whole line is checked).
  CHECK(Convert(&some, InputFormat::kLogfmt, nullptr, "ts=1 msg=\xff") ==
        "BAD: invalid JSON: The input is not valid UTF-8");
  const CsvHeader h("ts,msg", ',');
  CHECK(Convert(&some, InputFormat::kCsv, &h, "1,\xc3") ==
        "BAD: invalid JSON: The input is not valid UTF-8");
  CHECK(Convert(&some, InputFormat::kCsv, &h, "1,2,3") ==
        "BAD: the row has 3 fields, the header (line 1) has 2");
}

TEST_CASE("line converter: random logfmt lines keep the members read and the refusals") {
  std::mt19937 rng(33);
  const std::string alphabet = "ab= \t\"\\nu0{,.-1e\xc3\xa9";
  const std::vector<std::string> keys = {"a", "b", "ab"};
  LineConverter all, some;
  some.set_keys(KeySet(keys));
  int compared = 0;
  for (int i = 0; i < 30000; ++i) {
    std::string line;
    const int n = static_cast<int>(rng() % 48);  // past 8 bytes: the word-at-a-time scans
    for (int k = 0; k < n; ++k) line += alphabet[rng() % alphabet.size()];
    INFO(line);
    std::string_view a, s;
    Status sa = all.Convert(InputFormat::kLogfmt, nullptr, line, &a);
    const std::string full = sa.ok() ? std::string(a) : std::string();
    Status ss = some.Convert(InputFormat::kLogfmt, nullptr, line, &s);
    if (sa.ok() && !ss.ok()) {
      // The whole object is no UTF-8 either: the extractor refuses it with these words.
      CHECK(ss.message() == "invalid JSON: The input is not valid UTF-8");
      CHECK_FALSE(simdjson::validate_utf8(full.data(), full.size()));
      continue;
    }
    REQUIRE(sa.ok() == ss.ok());
    if (!sa.ok()) {
      CHECK(sa.message() == ss.message());
      continue;
    }
    REQUIRE(simdjson::validate_utf8(full.data(), full.size()));
    const std::string want = Members(full, keys);
    if (want == "BAD") continue;  // a value JSON refuses (a lone \u escape): read only if read
    CHECK(Members(s, keys) == want);
    ++compared;
  }
  CHECK(compared > 3000);
}

}  // namespace
}  // namespace logtide
