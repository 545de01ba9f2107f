#include "json/extractor.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <random>
#include <string>

#include "json/json_text.h"

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

// Reads the value `text` as the one field "n" of an object.
struct NumberReader {
  Fixture f;
  int n = f.Add("n");
  NumberReader() { REQUIRE(f.ex.Finish().ok()); }
  ValueRef operator()(const std::string& text) {
    INFO(text);
    REQUIRE(f.Run("{\"n\":" + text + "}").ok());
    return f.values[n];
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
  const char* names[] = {"a",         "service",          "trace_id",
                         "latency_m", "0123456789abcdef", "0123456789abcdefg"};
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
  REQUIRE(
      f.Run(R"({"\u0061":1,"serv\u0069ce":2,"trace\u005fid":3,"latency_\u006d":4,)"
            R"("0123456789abcde\u0066":5,"\u00301234567890abcdefg":0,"0123456789abcdef\u0067":6})")
          .ok());
  for (int i = 0; i < 6; ++i) CHECK(f.values[slot[i]].i == i + 1);
  // A key as the last thing on the line, right before the padding.
  REQUIRE(f.Run(R"({"x":1,"a":7})").ok());
  CHECK(f.values[slot[0]].i == 7);
}

TEST_CASE("numbers are read exactly, whatever their spelling") {
  NumberReader read;
  Fixture& f = read.f;
  // Expected values are C++ literals (the compiler rounds them correctly).
  CHECK(read("7.33").d == 7.33);
  CHECK(read("-1.5e-3").d == -1.5e-3);
  CHECK(read("0.30000000000000004").d == 0.30000000000000004);
  CHECK(read("1.7976931348623157e308").d == 1.7976931348623157e308);
  CHECK(read("4.9e-324").d == 4.9e-324);
  CHECK(read("9007199254740993.5").d == 9007199254740993.5);
  // More than 19 digits: simdjson 3.0.1's get_number() gives 0 for these.
  CHECK(read("1234.567890123456789").d == 1234.567890123456789);
  CHECK(read("1.23456789012345678901").d == 1.23456789012345678901);
  CHECK(read("1E+2").i == 100);
  CHECK(read("-0").i == 0);
  CHECK(read("123456789012345678").i == 123456789012345678);
  CHECK(read("9223372036854775807").i == INT64_MAX);
  CHECK(read("-9223372036854775808").i == INT64_MIN);
  CHECK(read("18446744073709551615").d == 18446744073709551615.0);
  for (const char* bad : {"01", "1.", ".5", "-", "+1", "1e", "1e+", "--1", "1.2.3", "0x10", "1a",
                          "1e400", "nul", "tru", "falsey", "012345678901234567890",
                          "99999999999999999999x", "-99999999999999999999-"}) {
    INFO(bad);
    CHECK_FALSE(f.Run(std::string("{\"n\":") + bad + "}").ok());
  }
}

// Issue 28: integers beyond 64 bits were refused as invalid JSON.
TEST_CASE("integers beyond 64 bits are read as the nearest double (issue 28)") {
  NumberReader read;
  const double k63 = 9223372036854775808.0, k64 = 18446744073709551616.0;
  CHECK_FALSE(read("9223372036854775808").is_int);
  CHECK(read("9223372036854775808").d == k63);
  CHECK(read("18446744073709551616").d == k64);
  CHECK_FALSE(read("18446744073709551616").is_int);
  CHECK(read("99999999999999999999").d == 1e20);  // 1e20 - 1 rounds to 1e20, a double
  CHECK(read("-99999999999999999999").d == -1e20);
  CHECK(read("-18446744073709551616").d == -k64);
  CHECK(read("1000000000000000000000000000000").d == 1e30);
  CHECK(read("1.8446744073709552e19").d == k64);
  // -2^63 - 1 rounds to -2^63, which is integral and within int64: the integer INT64_MIN.
  CHECK(read("-9223372036854775809").is_int);
  CHECK(read("-9223372036854775809").i == INT64_MIN);
  // Past the largest double an integer is refused, as 1e400 is.
  NumberReader& r = read;
  CHECK_FALSE(r.f.Run("{\"n\":1" + std::string(400, '0') + "}").ok());
}

std::string Key(const ValueRef& v) {
  std::string out;
  EncodeValue(v, &out);
  return out;
}

TEST_CASE("spellings of one number beyond 64 bits are one key (issue 28)") {
  NumberReader read;
  CHECK(Key(read("99999999999999999999")) == Key(read("1e20")));
  CHECK(Key(read("100000000000000000000")) == Key(read("1e+20")));
  CHECK(Key(read("18446744073709551615")) == Key(read("18446744073709551616")));
  CHECK(Key(read("18446744073709551616")) == Key(read("1.8446744073709552e19")));
  CHECK(Key(read("-9223372036854775809")) == Key(read("-9223372036854775808")));
  CHECK(Key(read("9223372036854775807")) != Key(read("9223372036854775808")));
}

// What logtide writes, logtide reads back as the same value: `logtide | logtide` works.
TEST_CASE("every number written reads back as the same key (issue 28)") {
  NumberReader read;
  const double k63 = 9223372036854775808.0, k64 = 18446744073709551616.0;
  for (const ValueRef& v :
       {ValueRef::Int(INT64_MAX), ValueRef::Int(INT64_MIN), ValueRef::Int(INT64_MAX - 1),
        ValueRef::Number(9007199254740992.0), ValueRef::Number(k63), ValueRef::Number(-k63),
        ValueRef::Number(k64), ValueRef::Number(-k64), ValueRef::Number(1e19),
        ValueRef::Number(1e20), ValueRef::Number(-1e20), ValueRef::Number(1.7976931348623157e308),
        ValueRef::Number(0.1), read("99999999999999999999")}) {
    std::string text;
    AppendJsonValue(v, &text);
    INFO(text);
    CHECK(Key(read(text)) == Key(v));
  }
}

TEST_CASE("objects and arrays may hold integers beyond 64 bits (issue 28)") {
  Fixture f;
  int o = f.Add("o");
  REQUIRE(f.ex.Finish().ok());
  REQUIRE(f.Run(R"({"o":[99999999999999999999, 18446744073709551616, -9223372036854775809]})")
              .ok());
  CHECK(f.values[o].s == "[1e+20,1.8446744073709552e+19,-9223372036854775808]");
  REQUIRE(f.Run(R"({"o":{"b":"99999999999999999999","a":-100000000000000000000}})").ok());
  CHECK(f.values[o].s == R"({"a":-1e+20,"b":"99999999999999999999"})");
  CHECK_FALSE(f.Run(R"({"o":[99999999999999999999x]})").ok());
  CHECK_FALSE(f.Run(R"({"o":[099999999999999999999]})").ok());
  JsonChecker checker;
  CHECK(checker.IsValid(R"({"a":99999999999999999999,"b":[-99999999999999999999]})"));
  CHECK(checker.IsValid(R"({"a":"\"99999999999999999999"})"));
  CHECK_FALSE(checker.IsValid(R"({"a":99999999999999999999x})"));
  CHECK_FALSE(checker.IsValid("{\"a\":1" + std::string(400, '0') + "}"));
}

TEST_CASE("decimals are integers exactly when their value is integral") {
  NumberReader read;
  CHECK(read("7.00").is_int);
  CHECK(read("7.00").i == 7);
  CHECK(read("-0.0").is_int);
  CHECK_FALSE(read("7.01").is_int);
  CHECK_FALSE(read("0.5").is_int);
  // Decimals of up to 18 digits and at most 2^53 as digits, as many after the point as fit
  // (the ones read without std::from_chars): the class and value are those of strtod's double.
  std::mt19937_64 rng(42);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t digits = rng() % ((uint64_t{1} << 53) + 1) / (uint64_t{1} << (rng() % 54));
    std::string text = std::to_string(digits);
    const size_t fraction = 1 + rng() % std::min<size_t>(text.size(), 17);
    while (text.size() <= fraction) text.insert(0, "0");
    text.insert(text.size() - fraction, ".");
    if (i % 5 == 0) {  // a value close to an integer: fraction digits all zero but the last
      text.replace(text.size() - fraction, fraction - 1, std::string(fraction - 1, '0'));
    }
    if (rng() % 2 == 1) text.insert(0, "-");
    const ValueRef expected = ValueRef::Number(std::strtod(text.c_str(), nullptr));
    const ValueRef v = read(text);
    INFO(text);
    REQUIRE(v.type == ValueType::kNumber);
    CHECK(v.is_int == expected.is_int);
    CHECK(v.d == expected.d);
    CHECK(v.i == expected.i);
  }
}

TEST_CASE("strings are unescaped; raw values are canonical JSON text") {
  Fixture f;
  int s = f.Add("s"), o = f.Add("o");
  REQUIRE(f.ex.Finish().ok());
  REQUIRE(f.Run(R"({"s":"a\"b\\c\u00e9\ud83d\ude00\/", "o" : [1, {"k":"}"}]  })").ok());
  CHECK(f.values[s].s == "a\"b\\c\xc3\xa9\xf0\x9f\x98\x80/");
  CHECK(f.values[o].s == R"([1,{"k":"}"}])");
  // Keys sorted, the last of a duplicate kept, numbers as values, fewest escapes.
  REQUIRE(f.Run(R"({"o": {"b" : 2e2, "a":[1.0, -0.5, 1e300], "b":{"\u00e9\/":"\u0001\n"}}})").ok());
  CHECK(f.values[o].s == "{\"a\":[1,-0.5,1e+300],\"b\":{\"\xc3\xa9/\":\"\\u0001\\n\"}}");
  CHECK_FALSE(f.Run(R"({"s":"\x"})").ok());    // a bad escape in a value read
  CHECK_FALSE(f.Run(R"({"o":[1,}]})").ok());   // an invalid raw value read
  CHECK_FALSE(f.Run(R"({"x":[1}})").ok());     // brackets that do not match, unread
  CHECK_FALSE(f.Run(R"({"x":+1})").ok());      // not a value, unread
  CHECK(f.Run(R"({"x\q":1,"s":"ok"})").ok());  // a bad escape in a key: matches nothing
  CHECK(f.values[s].s == "ok");
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

TEST_CASE("a path may be both a value and a parent; a later copy of a parent replaces it") {
  Fixture f;
  int req = f.Add("req"), id = f.Add("req.id");
  REQUIRE(f.ex.Finish().ok());
  REQUIRE(f.Run(R"({"req":{"id":7,"m":"GET"}})").ok());
  CHECK(f.values[req].s == R"({"id":7,"m":"GET"})");
  CHECK(f.values[id].i == 7);
  // The last copy of "req" wins, for the object and for the paths through it.
  REQUIRE(f.Run(R"({"req":{"id":7},"req":{"m":"PUT"}})").ok());
  CHECK(f.values[req].s == R"({"m":"PUT"})");
  CHECK(f.values[id].is_null());
  REQUIRE(f.Run(R"({"req":{"id":7},"req":5})").ok());
  CHECK(f.values[req].i == 5);
  CHECK(f.values[id].is_null());
  REQUIRE(f.Run(R"({"req":5,"req":{"id":8}})").ok());
  CHECK(f.values[id].i == 8);
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

namespace logtide {
namespace {

// Array elements: by index, negative from the end; two indices may name one element (of a
// one-element array), which is then read once for each, its escaped strings included: the
// scratch space for unescaped strings must hold every copy (ASan checks it).
TEST_CASE("array elements named twice are read twice") {
  for (const bool deferred : {false, true}) {
    Fixture f;
    const int first = f.Add("tags[0]"), last = f.Add("tags[-1]"), past = f.Add("tags[1]");
    const int a00 = f.Add("a[0][0]"), a01 = f.Add("a[0][-1]"), a10 = f.Add("a[-1][0]"),
              a11 = f.Add("a[-1][-1]"), key = f.Add("o[-1].k");
    if (deferred) {
      for (int slot : {first, last, a00, a11, key}) f.ex.Defer(slot);
    }
    REQUIRE(f.ex.Finish().ok());
    std::string text;
    for (int i = 0; i < 2000; ++i) text += i % 7 == 0 ? "\\n" : "x";
    std::string unescaped;
    for (int i = 0; i < 2000; ++i) unescaped += i % 7 == 0 ? '\n' : 'x';
    const std::string line = "{\"tags\":[\"" + text + "\"],\"a\":[[\"" + text + "\"]],\"o\":[{\"\\u006b\":\"" +
                             text + "\"}]}";
    INFO("deferred " << deferred);
    REQUIRE(f.Run(line).ok());
    if (deferred) REQUIRE(f.ex.ExtractRest(f.buf.data(), line.size(), &f.values).ok());
    for (int slot : {first, last, a00, a01, a10, a11, key}) {
      INFO("slot " << slot);
      REQUIRE(f.values[slot].type == ValueType::kString);
      CHECK(f.values[slot].s == unescaped);
    }
    CHECK(f.values[past].is_null());
  }
}

}  // namespace
}  // namespace logtide
