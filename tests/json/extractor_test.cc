#include "json/extractor.h"

#include <catch2/catch.hpp>
#include <string>

namespace logtide {
namespace {

// Extracts from `json` with the padding simdjson needs.
struct Fixture {
  FieldExtractor ex;
  std::vector<ValueRef> values;
  std::string buf;
  int Add(const char* path, bool keep_number_text = false) {
    int slot = -1;
    REQUIRE(ex.AddPath(path, &slot, keep_number_text).ok());
    return slot;
  }
  Status Run(const std::string& json) {
    buf = json;
    buf.append(FieldExtractor::kPadding, ' ');
    return ex.Extract(buf.data(), json.size(), buf.size(), &values);
  }
};

TEST_CASE("top-level and nested fields are read in one pass") {
  Fixture f;
  int ts = f.Add("ts"), method = f.Add("req.method"), deep = f.Add("a.b.c");
  REQUIRE(f.ex.Finish().ok());
  REQUIRE(f.Run(R"({"x":[1,{"ts":9}],"req":{"method":"GET","n":2},"ts":"t1","a":{"b":{"c":true}}})")
              .ok());
  CHECK(f.values[ts].type == ValueType::kString);
  CHECK(f.values[ts].s == "t1");
  CHECK(f.values[method].s == "GET");
  CHECK(f.values[deep].type == ValueType::kTrue);
}

TEST_CASE("absent fields and fields under a non-object are null") {
  Fixture f;
  int a = f.Add("a"), bc = f.Add("b.c");
  REQUIRE(f.ex.Finish().ok());
  REQUIRE(f.Run(R"({"b":5})").ok());
  CHECK(f.values[a].is_null());
  CHECK(f.values[bc].is_null());
}

TEST_CASE("numbers keep their source text when asked; integral doubles become integers") {
  Fixture f;
  int n = f.Add("n", true), d = f.Add("d"), i = f.Add("i"), big = f.Add("big");
  REQUIRE(f.ex.Finish().ok());
  REQUIRE(f.Run(R"({"n":1700000000.25,"d":2.0,"i":-7,"big":18446744073709551615})").ok());
  CHECK_FALSE(f.values[n].is_int);
  CHECK(f.values[n].d == 1700000000.25);
  CHECK(f.values[n].s == "1700000000.25");
  CHECK(f.values[d].is_int);
  CHECK(f.values[d].i == 2);
  CHECK(f.values[d].s.empty());
  CHECK(f.values[i].i == -7);
  CHECK_FALSE(f.values[big].is_int);  // beyond int64: a double, as in jq
}

TEST_CASE("escaped keys match and the last duplicate wins") {
  Fixture f;
  int ts = f.Add("ts");
  REQUIRE(f.ex.Finish().ok());
  REQUIRE(f.Run(R"({"t\u0073":1,"ts":2})").ok());
  CHECK(f.values[ts].i == 2);
}

TEST_CASE("keys match names exactly, whatever their length and neighbours") {
  // Names of 1, 7, 8, 9, 16 and 17 bytes; keys that are prefixes or extensions of them, share
  // their first two bytes, or spell them with escapes.
  Fixture f;
  const char* names[] = {"a", "service", "trace_id", "latency_m", "0123456789abcdef",
                         "0123456789abcdefg"};
  int slot[6];
  for (int i = 0; i < 6; ++i) slot[i] = f.Add(names[i]);
  REQUIRE(f.ex.Finish().ok());
  REQUIRE(f.Run(R"({"ab":0,"servic":0,"services":0,"trace_i":0,"trace_idx":0,"latency_ms":0,)"
                R"("0123456789abcde":0,"0123456789abcdefgh":0,"0123456789abcdeF":0})")
              .ok());
  for (int i = 0; i < 6; ++i) CHECK(f.values[slot[i]].is_null());
  REQUIRE(f.Run(R"({"a":1,"service":2,"trace_id":3,"latency_m":4,"0123456789abcdef":5,)"
                R"("0123456789abcdefg":6})")
              .ok());
  for (int i = 0; i < 6; ++i) CHECK(f.values[slot[i]].i == i + 1);
  REQUIRE(f.Run(R"({"\u0061":1,"serv\u0069ce":2,"trace\u005fid":3,"latency_\u006d":4,)"
                R"("0123456789abcde\u0066":5,"\u00301234567890abcdefg":0,"0123456789abcdef\u0067":6})")
              .ok());
  for (int i = 0; i < 6; ++i) CHECK(f.values[slot[i]].i == i + 1);
  // A key as the last thing on the line, right before the padding.
  REQUIRE(f.Run(R"({"x":1,"a":7})").ok());
  CHECK(f.values[slot[0]].i == 7);
}

TEST_CASE("objects and arrays are kept as their JSON text") {
  Fixture f;
  int o = f.Add("o"), a = f.Add("a");
  REQUIRE(f.ex.Finish().ok());
  REQUIRE(f.Run(R"({"o":{"k":[1,2]},"a":[3]})").ok());
  CHECK(f.values[o].type == ValueType::kRaw);
  CHECK(f.values[o].s == R"({"k":[1,2]})");
  CHECK(f.values[a].s == "[3]");
}

TEST_CASE("lines that are not one JSON object are refused with a reason") {
  Fixture f;
  f.Add("ts");
  REQUIRE(f.ex.Finish().ok());
  CHECK_THAT(f.Run("[1,2]").message(), Catch::Contains("not a JSON object (an array)"));
  CHECK_THAT(f.Run("\"s\"").message(), Catch::Contains("not a JSON object (a string)"));
  CHECK_THAT(f.Run("hello").message(), Catch::Contains("invalid JSON"));
  CHECK_THAT(f.Run(R"({"ts":1} {"ts":2})").message(), Catch::Contains("invalid JSON"));
  CHECK_THAT(f.Run(R"({"ts":1,})").message(), Catch::Contains("invalid JSON"));
  CHECK_THAT(f.Run(R"({"ts":"unterminated})").message(), Catch::Contains("invalid JSON"));
  CHECK_THAT(f.Run("{\"ts\":\"\xff\"}").message(), Catch::Contains("UTF-8"));
}

TEST_CASE("bad paths are refused") {
  FieldExtractor ex;
  int slot;
  CHECK_FALSE(ex.AddPath("a..b", &slot).ok());
  CHECK_FALSE(ex.AddPath("", &slot).ok());
  CHECK_FALSE(ex.AddPath(".a", &slot).ok());
}

TEST_CASE("a path may not be both a value and a parent") {
  FieldExtractor ex;
  int slot;
  REQUIRE(ex.AddPath("req", &slot).ok());
  REQUIRE(ex.AddPath("req.id", &slot).ok());
  Status s = ex.Finish();
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains("req.id"));
}

TEST_CASE("the same path registered twice shares a slot") {
  FieldExtractor ex;
  int a, b;
  REQUIRE(ex.AddPath("x.y", &a).ok());
  REQUIRE(ex.AddPath("x.y", &b).ok());
  CHECK(a == b);
  CHECK(ex.num_slots() == 1);
}

}  // namespace
}  // namespace logtide
