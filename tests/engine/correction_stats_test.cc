// CorrectionStats: which (window, key) pairs count as corrected after their on-time record, and
// the relative changes, from records built here by hand (man/logtide.1, SEMANTICS,
// "Corrections").
#include "engine/correction_stats.h"

#include <catch2/catch.hpp>

#include "json/value.h"
#include "keys/key_table.h"

namespace logtide {
namespace {

// count and sum(x) over slots the test fills; keys by name.
struct Fixture {
  Fixture() : acc(Specs()), stats(&acc) {}
  static std::vector<AggSpec> Specs() {
    AggSpec count, sum;
    (void)ParseAggSpec("count", &count);
    (void)ParseAggSpec("sum(x)", &sum);
    return {count, sum};
  }
  uint32_t Key(const std::string& name) {
    std::string enc;
    EncodeValue(ValueRef::String(name), &enc);
    return keys.Intern(enc);
  }
  // A new slot holding events with these x values.
  uint32_t Slot(std::vector<int64_t> xs) {
    const uint32_t s = acc.Allocate();
    for (int64_t x : xs) Add(s, x);
    return s;
  }
  void Add(uint32_t slot, int64_t x) {
    ValueRef in[2] = {ValueRef::Null(), ValueRef::Int(x)};
    acc.Add(slot, in, 0, ++seq, wrong);
  }
  void Record(uint32_t key, uint32_t slot, RecordPhase phase, bool final, Nanos start = 0,
              Nanos end = 10) {
    stats.Observe({WindowResult{start, end, key, slot, 0, phase, final}});
  }
  KeyTable keys;
  Accumulators acc;
  CorrectionStats stats;
  uint64_t wrong[2] = {0, 0};
  uint64_t seq = 0;
};

TEST_CASE("corrections: a late record with other values corrects its pair's on-time one") {
  Fixture f;
  const uint32_t a = f.Key("a"), slot = f.Slot({4});
  f.Record(a, slot, RecordPhase::kOnTime, false);  // 1 / 4
  f.Add(slot, 2);
  f.Record(a, slot, RecordPhase::kLate, false);  // 2 / 6
  f.Add(slot, 6);
  f.Record(a, slot, RecordPhase::kLate, true);  // 3 / 12: from the on-time one, +200%, +200%
  f.stats.Finish();
  CHECK(f.stats.on_time() == 1);
  CHECK(f.stats.corrected() == 1);
  CHECK(f.stats.change(0).pairs == 1);
  CHECK(f.stats.change(0).median == 2);
  CHECK(f.stats.change(1).max == 2);
}

TEST_CASE("corrections: a closing record that repeats the on-time values is no correction") {
  Fixture f;
  const uint32_t a = f.Key("a"), slot = f.Slot({4});
  f.Record(a, slot, RecordPhase::kOnTime, false);
  f.Record(a, slot, RecordPhase::kLate, true);
  f.stats.Finish();
  CHECK(f.stats.on_time() == 1);
  CHECK(f.stats.corrected() == 0);
  CHECK(f.stats.change(0).pairs == 0);
  CHECK(f.stats.Summary({"count", "sum_x"}).empty());
}

TEST_CASE("corrections: a final on-time record, early records, and late records of another "
          "pair count for nothing") {
  Fixture f;
  const uint32_t a = f.Key("a"), b = f.Key("b");
  const uint32_t s1 = f.Slot({1}), s2 = f.Slot({1, 1});
  f.Record(a, s1, RecordPhase::kEarly, false);
  f.Record(a, s1, RecordPhase::kOnTime, true);  // final: it cannot change
  f.Record(b, s2, RecordPhase::kLate, true, 0, 12);  // a session extended: another pair
  f.stats.Finish();
  CHECK(f.stats.on_time() == 0);
  CHECK(f.stats.corrected() == 0);
}

TEST_CASE("corrections: pairs held at the end are settled with their last record; medians") {
  Fixture f;
  // Three pairs of one window, corrected by +100%, +50% and +25% in count; the sum of c is 0
  // on time, so sum_x has two figures: 4 -> 8 (+100%) and 10 -> 30 (+200%).
  const uint32_t a = f.Key("a"), b = f.Key("b"), c = f.Key("c");
  const uint32_t sa = f.Slot({4}), sb = f.Slot({5, 5}), sc = f.Slot({0, 0, 0, 0});
  f.stats.Observe({WindowResult{0, 10, a, sa, 0, RecordPhase::kOnTime, false},
                   WindowResult{0, 10, b, sb, 0, RecordPhase::kOnTime, false},
                   WindowResult{0, 10, c, sc, 0, RecordPhase::kOnTime, false}});
  f.Add(sa, 4);
  f.Record(a, sa, RecordPhase::kLate, false);  // 2 / 8
  f.Add(sb, 20);
  f.Record(b, sb, RecordPhase::kLate, false);  // 3 / 30
  f.Add(sc, 7);
  f.Record(c, sc, RecordPhase::kLate, false);  // 5 / 7
  f.stats.Finish();  // none had its final record (a stop)
  CHECK(f.stats.on_time() == 3);
  CHECK(f.stats.corrected() == 3);
  const CorrectionStats::Change count = f.stats.change(0), sum = f.stats.change(1);
  CHECK(count.pairs == 3);
  CHECK(count.median == 0.5);
  CHECK(count.max == 1);
  CHECK(sum.pairs == 2);
  CHECK(sum.median == 1.5);
  CHECK(sum.max == 2);
  CHECK(f.stats.Summary({"count", "sum_x"}) ==
        "3 of 3 windows and keys written on time were corrected later, by late events within "
        "--lateness: count by a median of 50% (largest 100%), sum_x by a median of 150% "
        "(largest 200%); a larger --delay makes on-time records more complete, and later, or "
        "rely on the revisions");
  CHECK(f.stats.StatsJson({"count", "sum_x"}) ==
        "{\"on_time\":3,\"corrected\":3,\"relative_change\":{\"count\":{\"pairs\":3,"
        "\"median\":0.5,\"max\":1},\"sum_x\":{\"pairs\":2,\"median\":1.5,\"max\":2}}}");
}

}  // namespace
}  // namespace logtide

namespace logtide {
namespace {

// Changes of 1000% and more are whole percents, never in exponent form (1.9e+03%).
TEST_CASE("corrections: large changes are written as whole percents") {
  Fixture f;
  const uint32_t a = f.Key("a"), slot = f.Slot({1});
  f.Record(a, slot, RecordPhase::kOnTime, false);  // count 1, sum 1
  for (int i = 0; i < 19; ++i) f.Add(slot, 1);
  f.Record(a, slot, RecordPhase::kLate, true);  // count 20, sum 20: +1900% each
  f.stats.Finish();
  const std::string s = f.stats.Summary({"count", "sum_x"});
  CHECK_THAT(s, Catch::Contains("count by a median of 1900% (largest 1900%)"));
  CHECK_THAT(s, !Catch::Contains("e+"));
}

}  // namespace
}  // namespace logtide
