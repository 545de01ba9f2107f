#include "agg/accumulators.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "json/json_text.h"

namespace logtide {
namespace {

// Renders results as JSON text, the way the output does.
class TextSink : public ValueSink {
 public:
  std::string text;
  void Null() override { text = "null"; }
  void Int(__int128 v) override {
    text.clear();
    AppendInt128(v, &text);
  }
  void Double(double v) override {
    text.clear();
    AppendDouble(v, &text);
  }
  void Value(const ValueRef& v) override {
    text.clear();
    AppendJsonValue(v, &text);
  }
};

AggSpec Spec(const char* text) {
  AggSpec s;
  REQUIRE(ParseAggSpec(text, &s).ok());
  return s;
}

// One aggregate over a list of (value, time) events, in order; returns the result text and
// how many values it ignored.
struct Run {
  std::string result;
  uint64_t ignored = 0;
};
Run Aggregate(const char* spec, const std::vector<std::pair<ValueRef, Nanos>>& events) {
  Accumulators acc({Spec(spec)});
  uint32_t slot = acc.Allocate();
  Run r;
  uint64_t seq = 0;
  for (const auto& [v, t] : events) acc.Add(slot, &v, t, ++seq, &r.ignored);
  TextSink sink;
  acc.Result(slot, 0, &sink);
  r.result = sink.text;
  return r;
}

const ValueRef kNull = ValueRef::Null();
ValueRef I(int64_t i) { return ValueRef::Int(i); }
ValueRef D(double d) { return ValueRef::Number(d); }
ValueRef S(const char* s) { return ValueRef::String(s); }

TEST_CASE("count counts events, count(f) only non-null values") {
  CHECK(Aggregate("count", {{kNull, 0}, {I(1), 0}}).result == "2");
  CHECK(Aggregate("count(x)", {{kNull, 0}, {I(1), 0}, {S("a"), 0}}).result == "2");
}

TEST_CASE("sum of integers stays an exact integer, even past int64") {
  CHECK(Aggregate("sum(x)", {{I(1), 0}, {I(2), 0}}).result == "3");
  CHECK(Aggregate("sum(x)", {{I(INT64_MAX), 0}, {I(INT64_MAX), 0}}).result ==
        "18446744073709551614");
  CHECK(Aggregate("sum(x)", {{I(INT64_MIN), 0}, {I(-1), 0}}).result == "-9223372036854775809");
}

TEST_CASE("sum turns into a double with any non-integer, and is null without numbers") {
  CHECK(Aggregate("sum(x)", {{I(1), 0}, {D(0.5), 0}}).result == "1.5");
  CHECK(Aggregate("sum(x)", {{kNull, 0}}).result == "null");
  CHECK(Aggregate("sum(x)", {}).result == "null");
}

TEST_CASE("numeric aggregates ignore and count values of other types") {
  Run r = Aggregate("sum(x)", {{I(4), 0}, {S("5"), 0}, {ValueRef::Bool(true), 0}, {kNull, 0}});
  CHECK(r.result == "4");
  CHECK(r.ignored == 2);
  CHECK(Aggregate("avg(x)", {{S("a"), 0}}).result == "null");
}

TEST_CASE("avg is a double over the numeric values") {
  CHECK(Aggregate("avg(x)", {{I(1), 0}, {I(2), 0}}).result == "1.5");
  CHECK(Aggregate("avg(x)", {{I(2), 0}, {kNull, 0}, {I(4), 0}}).result == "3");
}

TEST_CASE("min and max compare across integers and doubles and keep the winner's type") {
  CHECK(Aggregate("min(x)", {{I(3), 0}, {D(2.5), 0}, {I(7), 0}}).result == "2.5");
  CHECK(Aggregate("max(x)", {{I(3), 0}, {D(2.5), 0}, {I(7), 0}}).result == "7");
  CHECK(Aggregate("max(x)", {{kNull, 0}}).result == "null");
}

TEST_CASE("count_distinct counts distinct non-null values; 1 and 1.0 are one value") {
  CHECK(
      Aggregate("count_distinct(x)", {{I(1), 0}, {D(1.0), 0}, {S("1"), 0}, {kNull, 0}, {S("1"), 0}})
          .result == "2");
  CHECK(Aggregate("count_distinct(x)", {}).result == "0");
}

TEST_CASE("first and last go by event time, ties by read order") {
  std::vector<std::pair<ValueRef, Nanos>> ev = {
      {S("b"), 20}, {S("a"), 10}, {S("c"), 30}, {S("c2"), 30}, {S("a2"), 10}};
  CHECK(Aggregate("first(x)", ev).result == "\"a\"");
  CHECK(Aggregate("last(x)", ev).result == "\"c2\"");
  CHECK(Aggregate("first(x)", {{kNull, 1}, {I(5), 2}}).result == "5");
}

TEST_CASE("merging two slots equals adding all events to one") {
  std::vector<AggSpec> specs = {Spec("count"),    Spec("sum(x)"), Spec("min(x)"),
                                Spec("max(x)"),   Spec("avg(x)"), Spec("count_distinct(x)"),
                                Spec("first(x)"), Spec("last(x)")};
  Accumulators acc(specs);
  uint32_t a = acc.Allocate(), b = acc.Allocate(), all = acc.Allocate();
  std::vector<uint64_t> ignored(specs.size());
  std::vector<ValueRef> in(specs.size());
  uint64_t seq = 0;
  auto add = [&](uint32_t slot, ValueRef v, Nanos t) {
    std::fill(in.begin(), in.end(), v);
    acc.Add(slot, in.data(), t, ++seq, ignored.data());
    acc.Add(all, in.data(), t, seq, ignored.data());
  };
  add(a, I(5), 50);
  add(b, D(1.5), 10);
  add(a, I(-2), 5);
  add(b, I(5), 70);
  acc.Merge(a, b);
  for (size_t i = 0; i < specs.size(); ++i) {
    TextSink merged, direct;
    acc.Result(a, i, &merged);
    acc.Result(all, i, &direct);
    INFO(specs[i].text);
    CHECK(merged.text == direct.text);
  }
}

TEST_CASE("freed slots are reset before reuse") {
  Accumulators acc({Spec("sum(x)")});
  uint32_t s = acc.Allocate();
  uint64_t ignored = 0;
  ValueRef v = I(9);
  acc.Add(s, &v, 0, 1, &ignored);
  acc.Free(s);
  uint32_t again = acc.Allocate();
  CHECK(again == s);
  TextSink sink;
  acc.Result(again, 0, &sink);
  CHECK(sink.text == "null");
}

TEST_CASE("agg specs: names, defaults and errors") {
  CHECK(Spec("sum(bytes)").name == "sum_bytes");
  CHECK(Spec("count").name == "count");
  CHECK(Spec("count(x)").kind == AggKind::kCountField);
  CHECK(Spec("total=sum(bytes)").name == "total");
  CHECK(Spec("p = avg(req.ms)").field == "req.ms");
  AggSpec s;
  CHECK_THAT(ParseAggSpec("mode(x)", &s).message(), Catch::Contains("unknown function"));
  CHECK_THAT(ParseAggSpec("sum", &s).message(), Catch::Contains("needs a field"));
  CHECK_THAT(ParseAggSpec("sum(x", &s).message(), Catch::Contains("missing ')'"));
  CHECK_THAT(ParseAggSpec("=count", &s).message(), Catch::Contains("empty name"));
}

TEST_CASE("agg specs: count(*) and count() are count; fields as jq writes them") {
  CHECK(Spec("count(*)").kind == AggKind::kCount);
  CHECK(Spec("count(*)").name == "count");
  CHECK(Spec("count(.*)").kind == AggKind::kCount);
  CHECK(Spec("count(.*)").name == "count");
  CHECK(Spec("count( )").kind == AggKind::kCount);
  CHECK(Spec("n=count(*)").name == "n");
  CHECK(Spec("sum(.bytes)").field == "bytes");
  CHECK(Spec("sum(.bytes)").name == "sum_bytes");
  CHECK(Spec("avg( req . ms )").field == "req.ms");
  AggSpec s;
  CHECK_THAT(ParseAggSpec("sum(*)", &s).message(), Catch::Contains("for count(*) only"));
  CHECK_THAT(ParseAggSpec("sum()", &s).message(), Catch::Contains("empty field"));
  CHECK_THAT(ParseAggSpec("sum((x))", &s).message(), Catch::Contains("cannot hold parentheses"));
  CHECK_THAT(ParseAggSpec("sum($x)", &s).message(), Catch::Contains("without '$'"));
}

TEST_CASE("agg lists: split at commas outside parentheses, in order") {
  std::vector<AggSpec> specs;
  REQUIRE(ParseAggList("sum(bytes),avg(latency_ms), n=count(*) ,max(a.b)", &specs).ok());
  REQUIRE(specs.size() == 4);
  CHECK(specs[0].name == "sum_bytes");
  CHECK(specs[1].name == "avg_latency_ms");
  CHECK(specs[2].name == "n");
  CHECK(specs[3].field == "a.b");
  std::vector<AggSpec> more;
  CHECK_FALSE(ParseAggList("sum(bytes),", &more).ok());  // an empty aggregate after the comma
  CHECK_FALSE(ParseAggList("sum(bytes,avg(x)", &more).ok());
}

}  // namespace
}  // namespace logtide

namespace logtide {
namespace {

TEST_CASE("snapshot and restore reproduce every aggregate, and damaged bytes are detected") {
  std::vector<AggSpec> specs = {
      Spec("count"),  Spec("count(x)"),          Spec("sum(x)"),   Spec("min(x)"), Spec("max(x)"),
      Spec("avg(x)"), Spec("count_distinct(x)"), Spec("first(x)"), Spec("last(x)")};
  Accumulators acc(specs);
  uint32_t slot = acc.Allocate();
  std::vector<uint64_t> ignored(specs.size());
  std::vector<ValueRef> in(specs.size());
  uint64_t seq = 0;
  for (const auto& [v, t] : std::vector<std::pair<ValueRef, Nanos>>{{I(INT64_MAX), 5},
                                                                    {D(0.25), 3},
                                                                    {S("text\"with\\escapes"), 9},
                                                                    {kNull, 1},
                                                                    {I(-4), 9}}) {
    std::fill(in.begin(), in.end(), v);
    acc.Add(slot, in.data(), t, ++seq, ignored.data());
  }
  std::string blob;
  ByteWriter w(&blob);
  acc.Snapshot(slot, &w);

  Accumulators fresh(specs);
  uint32_t restored = fresh.Allocate();
  ByteReader r(blob);
  fresh.Restore(restored, &r);
  REQUIRE(r.ok());
  CHECK(r.at_end());
  auto check_same_results = [&] {
    for (size_t i = 0; i < specs.size(); ++i) {
      TextSink a, b;
      acc.Result(slot, i, &a);
      fresh.Result(restored, i, &b);
      INFO(specs[i].text);
      CHECK(a.text == b.text);
    }
  };
  check_same_results();
  // The restored state goes on like the original.
  ValueRef more = I(1);
  std::fill(in.begin(), in.end(), more);
  acc.Add(slot, in.data(), 10, ++seq, ignored.data());
  fresh.Add(restored, in.data(), 10, seq, ignored.data());
  check_same_results();
  // A cut blob fails cleanly.
  ByteReader cut(std::string_view(blob).substr(0, blob.size() / 2));
  uint32_t other = fresh.Allocate();
  fresh.Restore(other, &cut);
  CHECK_FALSE(cut.ok());
}

// A restored state may hold counts and sums no input could make (its checksum made to fit):
// merging and adding to them wraps, which is defined, where it overflowed, which is not (found
// by tests/fuzz/fuzz_state.cc; the sanitizer build of this test reported it).
TEST_CASE("restored counts and sums at the ends of their range merge without overflow (issue 16)") {
  std::vector<AggSpec> specs = {Spec("count"), Spec("sum(x)"), Spec("avg(x)")};
  std::string blob;
  ByteWriter w(&blob);
  w.I64(INT64_MAX);              // count
  for (int i = 0; i < 2; ++i) {  // sum, avg: i128 integer part, f64 double part, i64 n, u8
    w.I128(~(static_cast<__int128>(1) << 127));
    w.F64(0);
    w.I64(INT64_MAX);
    w.U8(0);
  }
  Accumulators acc(specs);
  const uint32_t big = acc.Allocate(), one = acc.Allocate();
  ByteReader r(blob);
  acc.Restore(big, &r);
  REQUIRE(r.ok());
  REQUIRE(r.at_end());
  std::vector<uint64_t> ignored(specs.size());
  std::vector<ValueRef> in(specs.size(), I(1));
  acc.Add(one, in.data(), 0, 1, ignored.data());
  acc.Merge(big, one);
  acc.Add(big, in.data(), 0, 2, ignored.data());
  TextSink count;
  acc.Result(big, 0, &count);
  CHECK(count.text == "-9223372036854775807");  // INT64_MAX + 2, wrapped
}

TEST_CASE("agg specs: quantiles, approx_count_distinct and top_k") {
  CHECK(Spec("p99(latency_ms)").name == "p99_latency_ms");
  CHECK(Spec("p99(latency_ms)").kind == AggKind::kQuantile);
  CHECK(Spec("p99(latency_ms)").q == 0.99);
  CHECK(Spec("p50(x)").name == "p50_x");
  CHECK(Spec("p90(x)").q == 0.9);
  CHECK(Spec("p95(x)").q == 0.95);
  CHECK(Spec("p999(x)").name == "p999_x");
  CHECK(Spec("p999(x)").q == 0.999);
  CHECK(Spec("median(x)").name == "median_x");
  CHECK(Spec("median(x)").q == 0.5);
  CHECK(Spec("quantile(x, 0.99)").name == "p99_x");
  CHECK(Spec("quantile(x,.5)").name == "p50_x");
  CHECK(Spec("quantile(x, 0.05)").name == "p05_x");
  CHECK(Spec("quantile(x, 0.25)").q == 0.25);
  CHECK(Spec("quantile(x, 0)").name == "p0_x");
  CHECK(Spec("quantile(x, 1)").name == "p100_x");
  CHECK(Spec("quantile(x, 1.000)").q == 1.0);
  CHECK(Spec("quantile(.a.b, 0.75)").field == "a.b");
  CHECK(Spec("approx_count_distinct(user)").name == "approx_count_distinct_user");
  CHECK(Spec("top_k(path, 5)").name == "top_k_path");
  CHECK(Spec("top_k(path, 5)").k == 5);
  CHECK(CanonicalAggText(Spec("p99(x)")) == "p99_x=quantile(x,0.99)");
  CHECK(CanonicalAggText(Spec("m=quantile(x, 0.00001)")) == "m=quantile(x,0.00001)");
  CHECK(CanonicalAggText(Spec("top_k(x,7)")) == "top_k_x=top_k(x,7)");
  CHECK(CanonicalAggText(Spec("sum(x)")) == "sum_x=sum(x)");
  AggSpec s;
  CHECK_THAT(ParseAggSpec("quantile(x)", &s).message(), Catch::Contains("needs a field and Q"));
  CHECK_THAT(ParseAggSpec("quantile(x, 1.5)", &s).message(),
             Catch::Contains("Q must be a decimal from 0 to 1"));
  CHECK_THAT(ParseAggSpec("quantile(x, 1e-2)", &s).message(),
             Catch::Contains("Q must be a decimal"));
  CHECK_THAT(ParseAggSpec("quantile(x, -0.5)", &s).message(),
             Catch::Contains("Q must be a decimal"));
  CHECK_THAT(ParseAggSpec("quantile(x, )", &s).message(), Catch::Contains("Q must be a decimal"));
  CHECK_THAT(ParseAggSpec("top_k(x)", &s).message(), Catch::Contains("needs a field and K"));
  CHECK_THAT(ParseAggSpec("top_k(x, 0)", &s).message(), Catch::Contains("K must be a whole"));
  CHECK_THAT(ParseAggSpec("top_k(x, 1001)", &s).message(), Catch::Contains("K must be a whole"));
  CHECK_THAT(ParseAggSpec("top_k(x, 2.5)", &s).message(), Catch::Contains("K must be a whole"));
  CHECK_THAT(ParseAggSpec("p99(x, 0.5)", &s).message(), Catch::Contains("takes one field"));
  CHECK_THAT(ParseAggSpec("p99", &s).message(), Catch::Contains("needs a field"));
  CHECK_THAT(ParseAggSpec("sum(a, b)", &s).message(), Catch::Contains("takes one field"));
}

TEST_CASE("agg spec: a comma inside a quoted key is the key's") {
  AggSpec s;
  REQUIRE(ParseAggSpec(R"(sum(."x,y"))", &s).ok());
  CHECK(s.field == R"(["x,y"])");  // the canonical path
  CHECK(s.name == "sum_x,y");
  REQUIRE(ParseAggSpec(R"(top_k(."a,b", 3))", &s).ok());
  CHECK(s.field == R"(["a,b"])");
  CHECK(s.k == 3);
  REQUIRE(ParseAggSpec(R"(quantile(."p,q", 0.9))", &s).ok());
  CHECK(s.field == R"(["p,q"])");
  CHECK(s.name == "p90_p,q");
}

TEST_CASE("quantiles of one field share one sketch; each reads its own rank") {
  std::vector<AggSpec> specs = {Spec("p50(x)"), Spec("n=count"), Spec("p99(x)"),
                                Spec("quantile(y, 0.5)"), Spec("median(x)")};
  Accumulators acc(specs);
  const uint32_t slot = acc.Allocate();
  uint64_t ignored[5] = {};
  for (int i = 1; i <= 100; ++i) {
    ValueRef in[5] = {I(i), kNull, I(i), I(1000 + i), I(i)};
    acc.Add(slot, in, 0, static_cast<uint64_t>(i), ignored);
  }
  ValueRef text[5] = {S("a"), kNull, S("a"), kNull, S("a")};
  acc.Add(slot, text, 0, 101, ignored);
  // The string is counted once, by the sketch's owner.
  CHECK(ignored[0] == 1);
  CHECK(ignored[2] == 0);
  CHECK(ignored[4] == 0);
  TextSink sink;
  const auto within = [&](size_t agg, double exact) {
    acc.Result(slot, agg, &sink);
    INFO("aggregate " << agg << ": " << sink.text << " for " << exact);
    CHECK(std::abs(std::stod(sink.text) - exact) <= 0.01 * exact);
  };
  within(0, 50);    // rank ceil(0.5 * 100) = 50 (1-based) of 1..100
  within(2, 99);    // rank ceil(0.99 * 100) = 99
  within(3, 1050);  // y = 1001..1100, rank 49
  within(4, 50);
  acc.Result(slot, 0, &sink);
  const std::string p50 = sink.text;
  acc.Result(slot, 4, &sink);
  CHECK(sink.text == p50);  // median(x) is p50(x)
  // One sketch for x in the state: p99(x) and median(x) write nothing.
  std::string one_x, two_x;
  ByteWriter w1(&one_x), w2(&two_x);
  acc.Snapshot(slot, &w1);
  Accumulators only({Spec("p50(x)"), Spec("n=count"), Spec("quantile(y, 0.5)")});
  const uint32_t s2 = only.Allocate();
  for (int i = 1; i <= 100; ++i) {
    ValueRef in[3] = {I(i), kNull, I(1000 + i)};
    only.Add(s2, in, 0, static_cast<uint64_t>(i), ignored);
  }
  ValueRef text3[3] = {S("a"), kNull, kNull};
  only.Add(s2, text3, 0, 101, ignored);
  only.Snapshot(s2, &w2);
  CHECK(one_x == two_x);
}

TEST_CASE("top_k writes a JSON array of value, count and error; approx_count_distinct counts") {
  CHECK(Aggregate("top_k(x, 2)", {{S("b"), 0}, {I(200), 0}, {D(2e2), 0}, {S("b"), 0},
                                  {S("a"), 0}, {S("a"), 0}, {kNull, 0}})
            .result ==
        R"([{"value":200,"count":2,"error":0},{"value":"a","count":2,"error":0}])");
  CHECK(Aggregate("top_k(x, 2)", {}).result == "[]");
  CHECK(Aggregate("approx_count_distinct(x)",
                  {{I(200), 0}, {D(200.0), 0}, {S("200"), 0}, {kNull, 0}, {I(7), 0}})
            .result == "3");
  CHECK(Aggregate("p99(x)", {{kNull, 0}}).result == "null");
  CHECK(Aggregate("p99(x)", {{D(-2.5), 0}}).result == "-2.5");
}

}  // namespace
}  // namespace logtide
