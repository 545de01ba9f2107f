// Savepoints' text of window rows (state/savepoint_codec.h): every aggregate's state, and the
// pane and session rows around them, described field by field, turn into JSON and back into
// the same bytes; text not of the form is refused with the field and the reason.
#include <catch2/catch.hpp>
#include <simdjson.h>

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "agg/accumulators.h"
#include "state/savepoint_codec.h"
#include "window/window_operator.h"

namespace logtide {
namespace {

std::vector<AggSpec> Specs(const std::vector<std::string>& texts) {
  std::vector<AggSpec> specs;
  for (const std::string& t : texts) {
    AggSpec a;
    REQUIRE(ParseAggSpec(t, &a).ok());
    specs.push_back(a);
  }
  return specs;
}

// The bytes' text, checked to read back as the same bytes; "" when the bytes were refused.
template <class Describe>
std::string RoundTrip(std::string_view bytes, Describe describe, std::string* error = nullptr) {
  std::string json;
  JsonFromBytes out(bytes, &json);
  describe(&out);
  Status s = out.Finish();
  if (!s.ok()) {
    if (error) *error = s.message();
    return "";
  }
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  REQUIRE(parser.parse(json).get(obj) == simdjson::SUCCESS);
  std::string again;
  BytesFromJson in(obj, &again);
  describe(&in);
  Status back = in.Finish();
  INFO(json);
  INFO(back.message());
  REQUIRE(back.ok());
  REQUIRE(again == std::string(bytes));
  return json;
}

// The error BytesFromJson gives for `json`, or "" when it reads.
template <class Describe>
std::string Refusal(const std::string& json, Describe describe) {
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  REQUIRE(parser.parse(json).get(obj) == simdjson::SUCCESS);
  std::string bytes;
  BytesFromJson in(obj, &bytes);
  describe(&in);
  Status s = in.Finish();
  return s.ok() ? "" : s.message();
}

// A random value of every type an event can hold, strings with NUL bytes and non-ASCII text.
ValueRef RandomValue(std::mt19937_64& rng, std::string* text) {
  switch (rng() % 9) {
    case 0:
      return ValueRef::Null();
    case 1:
      return ValueRef::Bool(rng() % 2 == 0);
    case 2:
      return ValueRef::Int(static_cast<int64_t>(rng()) >> (rng() % 64));
    case 3:
      return ValueRef::Number(std::ldexp(static_cast<double>(rng() % 100000) - 50000.0,
                                         static_cast<int>(rng() % 200) - 100));
    case 4:
      return ValueRef::Number(-0.0 * static_cast<double>(rng() % 2));
    case 5:
      *text = "s" + std::to_string(rng() % 50);
      return ValueRef::String(*text);
    case 6:
      *text = std::string("nul\0byte", 8) + std::to_string(rng() % 5);
      return ValueRef::String(*text);
    case 7:
      *text = "\xc3\xa9t\xc3\xa9 \xe2\x82\xac\"\\\n" + std::to_string(rng() % 5);
      return ValueRef::String(*text);
    default:
      *text = "{\"a\":[1,2," + std::to_string(rng() % 7) + "],\"b\":\"x\"}";
      return ValueRef::Raw(*text);
  }
}

TEST_CASE("every aggregate's state reads back from its text as the same bytes") {
  const std::vector<AggSpec> specs = Specs(
      {"count", "count(v)", "sum(v)", "avg(v)", "min(v)", "max(v)", "count_distinct(v)",
       "first(v)", "last(v)", "p50(v)", "p99(v)", "quantile(w, 0.3)", "approx_count_distinct(v)",
       "top_k(v, 3)", "n_big=count filter v > 3"});
  std::mt19937_64 rng(7);
  for (int round = 0; round < 60; ++round) {
    Accumulators acc(specs);
    const uint32_t slot = acc.Allocate();
    // Up to 3000 events: sketches in their small and their large forms (an exact quantile
    // list up to 64 values, then buckets; a sparse distinct sketch up to 1024, then registers).
    const int events = round % 3 == 0 ? 0 : static_cast<int>(rng() % (round % 2 ? 40 : 3000));
    std::vector<uint64_t> wrong(specs.size(), 0);
    for (int e = 0; e < events; ++e) {
      std::string text;
      ValueRef v = RandomValue(rng, &text);
      if (round % 5 == 0) v = ValueRef::Number(static_cast<double>(rng() % 5000) / 7.0 - 300.0);
      std::vector<ValueRef> inputs(specs.size(), v);
      acc.Add(slot, inputs.data(), static_cast<Nanos>(rng() % 1000000), static_cast<uint64_t>(e),
              wrong.data());
    }
    std::string bytes;
    ByteWriter w(&bytes);
    acc.Snapshot(slot, &w);
    const std::string json =
        RoundTrip(bytes, [&](StateCodec* c) { acc.Describe(specs, c); });
    // Named by the aggregates' names; the second quantile of v reads the first's sketch.
    CHECK(json.find("\"sum_v\":{\"integer\":") != std::string::npos);
    CHECK(json.find("\"p99_v\"") == std::string::npos);
    CHECK(json.find("\"p30_w\":{\"version\":1,") != std::string::npos);
  }
}

TEST_CASE("an aggregate's text says its state: counts, sums, values, sketches") {
  const std::vector<AggSpec> specs =
      Specs({"count", "sum(v)", "min(v)", "max(v)", "count_distinct(v)", "first(v)", "last(v)",
             "p50(v)", "approx_count_distinct(v)", "top_k(v, 2)"});
  Accumulators acc(specs);
  const uint32_t slot = acc.Allocate();
  std::vector<uint64_t> wrong(specs.size(), 0);
  // 3 at time 10, 1.5 at time 5, "a" at time 20 (a string: sum, min, max and p50 ignore it).
  const ValueRef values[] = {ValueRef::Int(3), ValueRef::Number(1.5), ValueRef::String("a")};
  const Nanos times[] = {10, 5, 20};
  for (uint64_t e = 0; e < 3; ++e) {
    std::vector<ValueRef> in(specs.size(), values[e]);
    acc.Add(slot, in.data(), times[e], e, wrong.data());
  }
  std::string bytes;
  ByteWriter w(&bytes);
  acc.Snapshot(slot, &w);
  const std::string json = RoundTrip(bytes, [&](StateCodec* c) { acc.Describe(specs, c); });
  for (const char* part : {
           R"({"count":{"n":3},)",
           R"("sum_v":{"integer":"3","double":1.5,"n":2,"has_double":true},)",
           R"("min_v":{"has":true,"is_int":false,"int":0,"double":1.5},)",
           R"("max_v":{"has":true,"is_int":true,"int":3,"double":3},)",
           R"("count_distinct_v":{"values":[1.5,3,"a"]},)",
           R"("first_v":{"has":true,"time":5,"seq":1,"value":{"type":3,"is_int":false,"int":0,"double":1.5,"text":""}},)",
           R"("last_v":{"has":true,"time":20,"seq":2,"value":{"type":4,"is_int":false,"int":0,"double":0,"text":"a"}},)",
           R"("p50_v":{"version":1,"form":0,"values":[1.5,3]},)",
           R"("approx_count_distinct_v":{"version":1,"form":0,"hashes":[)",
           R"("top_k_v":{"version":1,"entries":[{"value":1.5,"count":1,"error":0},{"value":3,"count":1,"error":0},{"value":"a","count":1,"error":0}]}})"}) {
    INFO(part);
    CHECK(json.find(part) != std::string::npos);
  }
}

TEST_CASE("a state's numbers are written exactly, to their extremes") {
  const std::vector<AggSpec> specs = Specs({"sum(v)", "min(v)", "first(v)"});
  Accumulators acc(specs);
  const uint32_t slot = acc.Allocate();
  std::string bytes;
  ByteWriter w(&bytes);
  // sum: the smallest 128-bit integer part, and -0.0 as its double part.
  w.I128(static_cast<__int128>(static_cast<unsigned __int128>(1) << 127));
  w.F64(-0.0);
  w.I64(INT64_MAX);  // its count: never negative (below)
  w.U8(1);
  // min: NaN, infinity are refused by a state's restore but not by its text.
  w.U8(1);
  w.U8(0);
  w.I64(INT64_MAX);
  w.F64(-std::numeric_limits<double>::infinity());
  // first: the largest time, the smallest double.
  w.U8(1);
  w.I64(INT64_MAX);
  w.U64(UINT64_MAX);
  w.U8(4);
  w.U8(0);
  w.I64(-1);
  w.F64(std::numeric_limits<double>::denorm_min());
  w.Bytes("text");
  (void)slot;
  const std::string json = RoundTrip(bytes, [&](StateCodec* c) { acc.Describe(specs, c); });
  CHECK(json.find("\"integer\":\"-170141183460469231731687303715884105728\"") !=
        std::string::npos);
  CHECK(json.find("\"double\":-0.0") != std::string::npos);
  CHECK(json.find("\"double\":\"-Infinity\"") != std::string::npos);
  CHECK(json.find("\"seq\":18446744073709551615") != std::string::npos);
  CHECK(json.find("\"n\":9223372036854775807") != std::string::npos);

  // What no run writes is refused, in both directions: a negative count, a value's type
  // past the last (5, an object's or array's text).
  std::string error;
  std::string negative = bytes;
  negative.replace(16 + 8, 8, std::string("\xff\xff\xff\xff\xff\xff\xff\xff", 8));
  CHECK(RoundTrip(negative, [&](StateCodec* c) { acc.Describe(specs, c); }, &error).empty());
  CHECK(error == "a count is not negative");
  // first's value: type, is_int, int, double, then "text" with its length.
  const size_t type_at = bytes.size() - (4 + 4) - 8 - 8 - 1 - 1;
  REQUIRE(bytes[type_at] == 4);
  std::string bad_type = bytes;
  bad_type[type_at] = 6;
  CHECK(RoundTrip(bad_type, [&](StateCodec* c) { acc.Describe(specs, c); }, &error).empty());
  CHECK(error == "not a value's type (0 to 5)");

  // NaNs keep their bits: inf + -inf (merged sessions' sums) is not the quiet NaN.
  auto f64 = [](StateCodec* c) { c->F64("d"); };
  for (uint64_t bits : {uint64_t{0x7ff8000000000000}, uint64_t{0xfff8000000000000},
                        uint64_t{0x7ff0000000000001}}) {
    double d;
    std::memcpy(&d, &bits, 8);
    std::string b;
    ByteWriter(&b).F64(d);
    const std::string j = RoundTrip(b, f64);
    CHECK(j == (bits == 0x7ff8000000000000 ? std::string("{\"d\":\"NaN\"}")
                                           : fmt::format("{{\"d\":\"NaN:{:016x}\"}}", bits)));
  }
  CHECK(Refusal(R"({"d":"NaN:3ff0000000000000"})", f64).find("is not a number") != std::string::npos);
  CHECK(Refusal(R"({"d":"nan"})", f64).find("is not a number") != std::string::npos);
  // A key's number that is not finite (a derived key's inf) is {"number":...}.
  std::string key;
  EncodeValue(ValueRef::Fraction(-std::numeric_limits<double>::infinity()), &key);
  EncodeValue(ValueRef::Fraction(std::numeric_limits<double>::quiet_NaN()), &key);
  CHECK(RoundTrip(key, [](StateCodec* c) { c->Key("key"); }) ==
        R"({"key":[{"number":"-Infinity"},{"number":"NaN"}]})");
}

TEST_CASE("pane and session rows read back from their text, revisions included") {
  const std::vector<AggSpec> specs = Specs({"count", "top_k(v, 2)"});
  Accumulators acc(specs);
  const uint32_t slot = acc.Allocate();
  std::string v = "x";
  std::vector<ValueRef> in(2, ValueRef::String(v));
  uint64_t wrong[2] = {0, 0};
  acc.Add(slot, in.data(), 5, 1, wrong);
  std::string aggs;
  ByteWriter aw(&aggs);
  acc.Snapshot(slot, &aw);
  std::string key;
  EncodeValue(ValueRef::String("alice"), &key);
  EncodeValue(ValueRef::Int(-3), &key);

  for (bool revised : {false, true}) {
    WindowRowForm form{false, revised, &acc, &specs};
    // A pane row: its start (negative too) then the key; the value, then the change mark.
    std::string row_key;
    uint64_t u = static_cast<uint64_t>(int64_t{-60}) ^ (uint64_t{1} << 63);
    for (int shift = 56; shift >= 0; shift -= 8) row_key.push_back(static_cast<char>(u >> shift));
    row_key += key;
    const std::string k =
        RoundTrip(row_key, [&](StateCodec* c) { DescribeWindowRowKey(form, c); });
    CHECK(k == "{\"start\":-60,\"key\":[\"alice\",-3]}");
    std::string value = aggs;
    if (revised) ByteWriter(&value).I64(INT64_MIN);
    const std::string j = RoundTrip(value, [&](StateCodec* c) { DescribeWindowRowValue(form, c); });
    CHECK((j.find("\"changed_at\":-9223372036854775808") != std::string::npos) == revised);
    // A row written before revisions were kept has no change mark: it stays without one.
    RoundTrip(aggs, [&](StateCodec* c) { DescribeWindowRowValue(form, c); });

    form.session = true;
    CHECK(RoundTrip(key, [&](StateCodec* c) { DescribeWindowRowKey(form, c); }) ==
          "{\"key\":[\"alice\",-3]}");
    std::string sessions;
    ByteWriter sw(&sessions);
    sw.U32(2);
    for (int i = 0; i < 2; ++i) {
      sw.I64(100 * i);
      sw.I64(100 * i + 50);
      sw.I64(i - 1);
      sessions += aggs;
    }
    if (revised) {
      sw.U8(1);
      sw.U8(0);
    }
    const std::string s =
        RoundTrip(sessions, [&](StateCodec* c) { DescribeWindowRowValue(form, c); });
    CHECK(s.find("\"sessions\":[{\"start\":0,\"end\":50,\"last_revision\":-1,\"aggs\":{") == 1);
    CHECK((s.find("\"changed\":[true,false]") != std::string::npos) == revised);
  }
}

TEST_CASE("bytes not of the form are refused, saying where") {
  const std::vector<AggSpec> specs = Specs({"count", "p50(v)", "approx_count_distinct(v)"});
  Accumulators acc(specs);
  auto describe = [&](StateCodec* c) { acc.Describe(specs, c); };
  std::string error;
  std::string bytes;
  ByteWriter w(&bytes);
  w.I64(3);
  w.U8(2);  // a quantile sketch of version 2
  CHECK(RoundTrip(bytes, describe, &error).empty());
  CHECK(error.find("version") != std::string::npos);
  bytes.resize(8);
  CHECK(RoundTrip(bytes, describe, &error).empty());
  CHECK(error.find("end before \"version\"") != std::string::npos);
  // Bytes left after the last field.
  std::string count;
  ByteWriter(&count).I64(1);
  count += "x";
  CHECK(RoundTrip(count, [](StateCodec* c) { c->I64("n"); }, &error).empty());
  CHECK(error.find("1 bytes are left") != std::string::npos);
  // A flag that is not 0 or 1; text that is not UTF-8.
  CHECK(RoundTrip("\x02", [](StateCodec* c) { c->Bool("has"); }, &error).empty());
  CHECK(error.find("neither 0 nor 1") != std::string::npos);
  std::string text;
  ByteWriter(&text).Bytes("\xff");
  // Bytes that are not UTF-8 (a file's name may be any bytes) are {"hex":...}; UTF-8 is text.
  auto name = [](StateCodec* c) { c->Bytes("name"); };
  CHECK(RoundTrip(text, name) == R"({"name":{"hex":"ff"}})");
  CHECK(Refusal(R"({"name":{"hex":"61"}})", name).find("bytes that are not UTF-8") !=
        std::string::npos);
  CHECK(Refusal(R"({"name":{"hex":"f"}})", name).find("bytes that are not UTF-8") !=
        std::string::npos);
  // A key in bytes with its length first.
  std::string key, prefixed;
  EncodeValue(ValueRef::String("k"), &key);
  ByteWriter(&prefixed).Bytes(key);
  CHECK(RoundTrip(prefixed, [](StateCodec* c) { c->KeyBytes("key"); }) == R"({"key":["k"]})");
}

TEST_CASE("text not of the form is refused, naming the field") {
  const std::vector<AggSpec> specs = Specs({"count", "top_k(v, 2)"});
  Accumulators acc(specs);
  auto describe = [&](StateCodec* c) { acc.Describe(specs, c); };
  const std::string good =
      R"({"count":{"n":2},"top_k_v":{"version":1,"entries":[{"value":"a","count":2,"error":0}]}})";
  CHECK(Refusal(good, describe).empty());
  CHECK(Refusal(R"({"count":{"n":2}})", describe) == "\"top_k_v\" is missing");
  CHECK(Refusal(R"({"count":{"n":"2"},"top_k_v":{}})", describe).find("\"count.n\" is not a whole number") == 0);
  CHECK(Refusal(R"({"count":{"n":2,"m":1},"top_k_v":{"version":1,"entries":[]}})", describe) ==
        "\"count.m\" is not a field of its form");
  CHECK(Refusal(R"({"count":{"n":2},"top_k_v":{"version":1,"entries":[]},"x":1})", describe) ==
        "\"x\" is not a field of its form");
  CHECK(Refusal(R"({"count":{"n":2,"n":3},"top_k_v":{"version":1,"entries":[]}})", describe) ==
        "\"count.n\" is given twice");
  CHECK(Refusal(R"({"count":{"n":-2},"top_k_v":{"version":1,"entries":[]}})", describe) ==
        "\"count.n\": a count is not negative");
  // A refusal of the description's own names the field it read last.
  CHECK(Refusal(R"({"count":{"n":2},"top_k_v":{"version":2,"entries":[]}})", describe) ==
        "\"top_k_v.version\": a top-k sketch of a version this logtide does not write");
  CHECK(Refusal(R"({"count":{"n":2},"top_k_v":{"version":1,"entries":[{"value":"a","count":-2,"error":0}]}})",
                describe)
            .find("\"top_k_v.entries[0].count\" is not a whole number") == 0);
  CHECK(Refusal(R"({"count":{"n":2},"top_k_v":{"version":1,"entries":[{"value":"a","count":1,"error":0},{"value":"b","count":true,"error":0}]}})",
                describe)
            .find("\"top_k_v.entries[1].count\" is not a whole number") == 0);
  CHECK(Refusal(R"({"count":{"n":2},"top_k_v":{"version":300,"entries":[]}})", describe)
            .find("\"top_k_v.version\" is not a whole number from 0 to 255") == 0);
  // A value: an object or array is {"json":TEXT}, its text kept as it is.
  const std::string raw =
      R"({"count":{"n":2},"top_k_v":{"version":1,"entries":[{"value":{"json":"[1, 2]"},"count":2,"error":0}]}})";
  CHECK(Refusal(raw, describe).empty());
  {
    simdjson::dom::parser parser;
    simdjson::dom::object obj;
    REQUIRE(parser.parse(raw).get(obj) == simdjson::SUCCESS);
    std::string bytes;
    BytesFromJson in(obj, &bytes);
    describe(&in);
    REQUIRE(in.Finish().ok());
    CHECK(RoundTrip(bytes, describe) == raw);
  }
  CHECK(Refusal(R"({"count":{"n":2},"top_k_v":{"version":1,"entries":[{"value":[1],"count":2,"error":0}]}})",
                describe)
            .find("\"top_k_v.entries[0].value\" is not a value") == 0);
  CHECK(Refusal(R"({"count":{"n":2},"top_k_v":{"version":1,"entries":[{"value":{"json":1},"count":2,"error":0}]}})",
                describe)
            .find("is not a value") != std::string::npos);
  // An object's or array's text must be JSON: records write it as it is.
  CHECK(Refusal(R"({"count":{"n":2},"top_k_v":{"version":1,"entries":[{"value":{"json":"}{"},"count":2,"error":0}]}})",
                describe)
            .find("is not a value") != std::string::npos);
  // A string that is not UTF-8 (a derived key may cut a character) is {"hex":...}; hex of
  // UTF-8 is refused (one text per state).
  std::string cut;
  EncodeValue(ValueRef::String("\xc3"), &cut);
  CHECK(RoundTrip(cut, [](StateCodec* c) { c->Key("key"); }) == R"({"key":[{"hex":"c3"}]})");
  CHECK(Refusal(R"({"key":[{"hex":"61"}]})", [](StateCodec* c) { c->Key("key"); })
            .find("holds what is not a value") != std::string::npos);
  // Registers of a dense distinct sketch: exactly their hexadecimal digits.
  const std::vector<AggSpec> d = Specs({"approx_count_distinct(v)"});
  Accumulators dacc(d);
  auto ddescribe = [&](StateCodec* c) { dacc.Describe(d, c); };
  CHECK(Refusal(R"({"approx_count_distinct_v":{"version":1,"form":1,"registers":"00"}})", ddescribe)
            .find("is not 24576 lowercase hexadecimal digits") != std::string::npos);
  // A quantile store's counts: as many as its buckets say.
  const std::vector<AggSpec> q = Specs({"p50(v)"});
  Accumulators qacc(q);
  auto qdescribe = [&](StateCodec* c) { qacc.Describe(q, c); };
  CHECK(Refusal(R"({"p50_v":{"version":1,"form":1,"zero":0,"min":1,"max":2,)"
                R"("positive":{"buckets":2,"lo":-5,"counts":[70]},"negative":{"buckets":0}}})",
                qdescribe)
            .find("has 1 elements, not the 2 an earlier field says") != std::string::npos);
  // 128-bit integers: decimal digits, canonical, in range.
  const std::vector<AggSpec> s = Specs({"sum(v)"});
  Accumulators sacc(s);
  auto sdescribe = [&](StateCodec* c) { sacc.Describe(s, c); };
  for (const char* bad : {"\"01\"", "\"-0\"", "\"1e3\"", "12", "\"170141183460469231731687303715884105728\""}) {
    INFO(bad);
    CHECK(Refusal(std::string(R"({"sum_v":{"integer":)") + bad +
                      R"(,"double":0,"n":1,"has_double":false}})",
                  sdescribe)
              .find("128-bit integer") != std::string::npos);
  }
  CHECK(Refusal(R"({"sum_v":{"integer":"170141183460469231731687303715884105727","double":"NaN","n":1,"has_double":true}})",
                sdescribe)
            .empty());
}

}  // namespace
}  // namespace logtide

namespace logtide {
namespace {

TEST_CASE("a query's aggregates are read back from its identity's canonical text") {
  std::vector<AggSpec> specs;
  for (const char* t : {"count", "n5=count filter status >= 500 and method == \"GET\"",
                        "p95(latency_ms)", "top_k(path, 3) filter path != \"a b=c(d)\"",
                        "sum(bytes)", "x=quantile(latency_ms, 0.5)"}) {
    AggSpec a;
    REQUIRE(ParseAggSpec(t, &a).ok());
    specs.push_back(a);
  }
  std::string text;
  for (const AggSpec& a : specs) text += (text.empty() ? "" : " ") + CanonicalAggText(a);
  std::vector<AggSpec> back;
  REQUIRE(ParseCanonicalAggList(text, &back).ok());
  REQUIRE(back.size() == specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    CHECK(back[i].name == specs[i].name);
    CHECK(back[i].kind == specs[i].kind);
    CHECK(back[i].field == specs[i].field);
    CHECK(back[i].filter == specs[i].filter);
    CHECK(back[i].q == specs[i].q);
    CHECK(back[i].k == specs[i].k);
  }
  std::vector<AggSpec> none;
  CHECK(!ParseCanonicalAggList("", &none).ok());
  CHECK(!ParseCanonicalAggList("count=count nonsense", &none).ok());
  CHECK(!ParseCanonicalAggList("count=count  sum_v=sum(v)", &none).ok());
}

}  // namespace
}  // namespace logtide
