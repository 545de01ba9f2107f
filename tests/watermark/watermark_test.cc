#include "watermark/watermark.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <cmath>
#include <vector>
#include <set>
#include <tuple>

#include "watermark/idleness.h"
#include "watermark/lateness.h"
#include "watermark/timer_queue.h"

namespace logtide {
namespace {

TEST_CASE("watermark is the minimum over unfinished inputs of max - delay, never decreasing") {
  WatermarkTracker w(2, 5);
  w.Observe(0, 100);
  CHECK(w.Update() == kMinusInfinity);  // input 1 has read nothing yet
  w.Observe(1, 50);
  CHECK(w.Update() == 45);
  w.Observe(1, 40);  // an older event does not move anything
  CHECK(w.Update() == 45);
  w.Finish(1);
  CHECK(w.Update() == 95);
  w.Finish(0);
  CHECK(w.Update() == kPlusInfinity);
}

TEST_CASE("timers pop in (time, end, start, key) order, only when due") {
  TimerQueue q;
  q.Push(Timer{20, 20, 10, 2, Timer::kFire});
  q.Push(Timer{20, 20, 5, 9, Timer::kFire});
  q.Push(Timer{10, 10, 0, 7, Timer::kFire});
  Timer t;
  CHECK_FALSE(q.PopDue(9, &t));
  REQUIRE(q.PopDue(20, &t));
  CHECK(t.key == 7);
  REQUIRE(q.PopDue(20, &t));
  CHECK(t.key == 9);
  REQUIRE(q.PopDue(20, &t));
  CHECK(t.key == 2);
  CHECK_FALSE(q.PopDue(kPlusInfinity, &t));
}

TEST_CASE("bucketed timers pop in the same order as one sorted set of them, for any width") {
  for (Nanos width : {Nanos{1}, Nanos{7}, Nanos{1000}, Nanos{1} << 40}) {
    CAPTURE(width);
    TimerQueue q(width);
    using T = std::tuple<Nanos, Nanos, Nanos, uint32_t, int>;  // Timer::tie() order
    std::multiset<T> want;
    uint64_t x = 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(width);  // xorshift64
    auto next = [&x](uint64_t n) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      return x % n;
    };
    Nanos w = -50000;
    auto pop_all_due = [&](Nanos wm) {
      Timer t;
      while (q.PopDue(wm, &t)) {
        REQUIRE_FALSE(want.empty());
        CHECK(t.tie() == *want.begin());
        want.erase(want.begin());
        // Timers set while popping, some due at once (update mode's cleanup with no lateness).
        if (next(4) == 0) {
          Timer n{wm - static_cast<Nanos>(next(3)), 0, static_cast<Nanos>(next(5)),
                  static_cast<uint32_t>(next(5)), Timer::kCleanup};
          n.end = n.time;
          q.Push(n);
          want.insert(n.tie());
        }
      }
      CHECK((want.empty() || std::get<0>(*want.begin()) > wm));
      CHECK(q.size() == want.size());
    };
    for (int round = 0; round < 3000; ++round) {
      for (uint64_t i = next(8); i > 0; --i) {
        // Times from just before the watermark to far after it, with many ties on time so the
        // other fields decide; now and then +infinity.
        Nanos time = next(50) == 0 ? kPlusInfinity : w + static_cast<Nanos>(next(4000)) - 3;
        Timer t{time, time, static_cast<Nanos>(next(7)), static_cast<uint32_t>(next(3)),
                next(2) == 0 ? Timer::kFire : Timer::kCleanup};
        q.Push(t);
        want.insert(t.tie());
      }
      w += static_cast<Nanos>(next(300));
      pop_all_due(w);
    }
    pop_all_due(kPlusInfinity);
    CHECK(want.empty());
  }
}

TEST_CASE("TimerService keeps event-time and processing-time timers apart") {
  TimerService timers(10);
  timers.Set(TimeDomain::kEventTime, Timer{5, 5, 0, 1, Timer::kFire});
  timers.Set(TimeDomain::kProcessingTime, Timer{1'000, 1'000, 0, 2, Timer::kFire});
  timers.Set(TimeDomain::kProcessingTime, Timer{3, 3, 0, 3, Timer::kFire});
  CHECK(timers.size(TimeDomain::kEventTime) == 1);
  CHECK(timers.size(TimeDomain::kProcessingTime) == 2);
  Timer t;
  // A watermark far past every time pops only event-time timers, and the clock only its own.
  CHECK(timers.PopDue(TimeDomain::kEventTime, kPlusInfinity, &t));
  CHECK(t.key == 1);
  CHECK_FALSE(timers.PopDue(TimeDomain::kEventTime, kPlusInfinity, &t));
  CHECK_FALSE(timers.PopDue(TimeDomain::kProcessingTime, 2, &t));
  CHECK(timers.PopDue(TimeDomain::kProcessingTime, 999, &t));
  CHECK(t.key == 3);
  CHECK_FALSE(timers.PopDue(TimeDomain::kProcessingTime, 999, &t));
  // A timer set before the earliest one waiting is still found (the queue's "nothing due
  // before" bound moves down with it).
  timers.Set(TimeDomain::kProcessingTime, Timer{500, 500, 0, 4, Timer::kFire});
  CHECK(timers.PopDue(TimeDomain::kProcessingTime, 999, &t));
  CHECK(t.key == 4);
  CHECK(timers.PopDue(TimeDomain::kProcessingTime, 1'000, &t));
  CHECK(t.key == 2);
  CHECK(timers.size(TimeDomain::kProcessingTime) == 0);
}


TEST_CASE("an idle input stops holding the watermark back, and rejoins behind it") {
  WatermarkTracker w(2, 0);
  w.Observe(0, 100);
  w.Observe(1, 10);
  CHECK(w.Update() == 10);
  w.SetIdle(1, true);
  CHECK(w.Update() == 100);
  CHECK_FALSE(w.AllIdle());
  // Back with an old event: the watermark never goes back, so that event is late.
  w.SetIdle(1, false);
  w.Observe(1, 20);
  CHECK(w.Update() == 100);
  // Every unfinished input idle: the minimum holds nothing, and the watermark stays where it
  // is (not +infinity) until raised.
  w.Finish(1);
  w.SetIdle(0, true);
  CHECK(w.AllIdle());
  CHECK(w.Update() == 100);
  CHECK(w.Raise(150) == 150);
  CHECK(w.Raise(120) == 150);
  w.Finish(0);
  CHECK(w.Update() == kPlusInfinity);
}

TEST_CASE("idleness: quiet for the timeout; wall-clock progress from the last line") {
  const Nanos s = kNanosPerSecond;
  Idleness idle(2, 5 * s, 1000 * s);  // both inputs quiet since t=1000 s
  CHECK(idle.enabled());
  CHECK_FALSE(idle.IdleAt(0, 1004 * s));
  CHECK(idle.IdleAt(0, 1005 * s));
  idle.Touch(0);  // a line, timed at the next Settle
  CHECK(idle.IdleAt(0, 1005 * s));
  idle.Settle(1003 * s);
  CHECK(idle.quiet_since(0) == 1003 * s);
  CHECK(idle.quiet_since(1) == 1000 * s);
  CHECK_FALSE(idle.IdleAt(0, 1007 * s));
  CHECK(idle.IdleAt(1, 1007 * s));
  // Event time moves on by the wall time since the latest line of any input.
  CHECK(idle.WallClockWatermark(50 * s, 1010 * s) == 57 * s);
  CHECK(idle.WallClockWatermark(kMinusInfinity, 1010 * s) == kMinusInfinity);
  // A clock set back: no negative progress, and a saved time in the future counts from now.
  CHECK(idle.WallClockWatermark(50 * s, 900 * s) == 50 * s);
  Idleness never(1, 0, 0);
  CHECK_FALSE(never.IdleAt(0, kPlusInfinity - 1));
}


namespace {

// The inputs' ids as a test sets them: ids[i] is input i's; `saved` what a checkpoint saves;
// `legacy` the times an "inputs" section of version 3 held, by id.
struct FakeInputIds final : InputIds {
  std::vector<uint64_t> ids;
  std::vector<Saved> saved;
  std::map<uint64_t, std::pair<int64_t, int64_t>> legacy;
  uint64_t id(int input) const override { return ids[static_cast<size_t>(input)]; }
  void SavedIds(std::vector<Saved>* out) const override { *out = saved; }
  bool LegacyTimes(uint64_t id, int64_t* max_time, int64_t* quiet_since) const override {
    auto it = legacy.find(id);
    if (it == legacy.end()) return false;
    *max_time = it->second.first;
    *quiet_since = it->second.second;
    return true;
  }
};

}  // namespace

TEST_CASE("watermark and idleness sections: times follow the inputs' ids, not their places") {
  const Nanos s = kNanosPerSecond;
  // Run 1: inputs a (id 1) and b (id 2), and c (id 3) kept from an earlier run; b's file was
  // rotated away while followed: saved as id 4, from input 1.
  FakeInputIds first;
  first.ids = {1, 2};
  first.saved = {{1, 0}, {2, 1}, {4, 1}};
  WatermarkTracker w1(2, 0);
  w1.set_input_ids(&first);
  w1.Observe(0, 10 * s);
  w1.Observe(1, 20 * s);
  w1.Update();
  Idleness i1(2, 5 * s, 100 * s);
  i1.set_input_ids(&first);
  i1.LineRead(0, 150 * s);
  std::string wm, idle;
  REQUIRE(w1.Save(&wm).ok());
  REQUIRE(i1.Save(&idle).ok());
  std::vector<std::pair<uint64_t, int64_t>> times;
  REQUIRE(DecodeWatermarkTimes(wm, &times));
  CHECK(times == std::vector<std::pair<uint64_t, int64_t>>{{1, 10 * s}, {2, 20 * s}, {4, 20 * s}});

  // Run 2 names them in another order (b first) and a new input d, at 120 s: a saved quiet
  // time after this run's start (a clock set back) counts from its start.
  FakeInputIds second;
  second.ids = {2, 5, 1};
  WatermarkTracker w2(3, 0);
  w2.set_input_ids(&second);
  REQUIRE(w2.Load(wm, 2).ok());
  CHECK(w2.current() == 10 * s);
  CHECK(w2.max_time(0) == 20 * s);
  CHECK(w2.max_time(1) == kMinusInfinity);
  CHECK(w2.max_time(2) == 10 * s);
  Idleness i2(3, 5 * s, 120 * s);
  i2.set_input_ids(&second);
  REQUIRE(i2.Load(idle, 1).ok());
  CHECK(i2.quiet_since(0) == 100 * s);
  CHECK(i2.quiet_since(1) == 120 * s);
  CHECK(i2.quiet_since(2) == 120 * s);
  // An input the second run does not read (id 4) keeps its times.
  second.saved = {{2, 0}, {5, 1}, {1, 2}, {4, -1}};
  std::string wm2, idle2;
  REQUIRE(w2.Save(&wm2).ok());
  REQUIRE(i2.Save(&idle2).ok());
  REQUIRE(DecodeWatermarkTimes(wm2, &times));
  CHECK(times.back() == std::pair<uint64_t, int64_t>{4, 20 * s});

  // A damaged section: an id twice, or id 0.
  std::string twice = wm2;
  twice.replace(8 + 4 + 16, 8, wm2.substr(8 + 4, 8));
  CHECK(w2.Load(twice, 2).code() == Status::Code::kCorruption);
  CHECK(i2.Load("", 1).code() == Status::Code::kCorruption);
}

TEST_CASE("watermark and idleness sections: a state whose inputs' section held the times") {
  const Nanos s = kNanosPerSecond;
  FakeInputIds ids;
  ids.ids = {2, 3};  // input 1 is new
  ids.legacy = {{1, {5 * s, 90 * s}}, {2, {7 * s, 80 * s}}};
  ids.saved = {{2, 0}, {3, 1}, {1, -1}};
  std::string v1;
  ByteWriter(&v1).I64(4 * s);  // version 1: the watermark alone
  WatermarkTracker w(2, 0);
  w.set_input_ids(&ids);
  REQUIRE(w.Load(v1, 1).ok());
  CHECK(w.current() == 4 * s);
  CHECK(w.max_time(0) == 7 * s);
  CHECK(w.max_time(1) == kMinusInfinity);
  Idleness idle(2, 5 * s, 100 * s);
  idle.set_input_ids(&ids);
  REQUIRE(idle.Load("", 0).ok());  // no "idleness" section
  CHECK(idle.quiet_since(0) == 80 * s);
  CHECK(idle.quiet_since(1) == 100 * s);
  // Saved again, in the new sections, the kept input's times too.
  std::string wm, q;
  REQUIRE(w.Save(&wm).ok());
  REQUIRE(idle.Save(&q).ok());
  std::vector<std::pair<uint64_t, int64_t>> times;
  REQUIRE(DecodeWatermarkTimes(wm, &times));
  CHECK(times ==
        std::vector<std::pair<uint64_t, int64_t>>{{2, 7 * s}, {3, kMinusInfinity}, {1, 5 * s}});
  FakeInputIds none;
  none.ids = {1, 2, 3};
  Idleness again(3, 5 * s, 200 * s);
  again.set_input_ids(&none);
  REQUIRE(again.Load(q, 1).ok());
  CHECK(again.quiet_since(0) == 90 * s);
  CHECK(again.quiet_since(1) == 80 * s);
  CHECK(again.quiet_since(2) == 100 * s);
}

TEST_CASE("lateness summary: exact max, median within 1/32, bounded") {
  LatenessSummary l;
  CHECK(l.Median() == 0);
  l.Add(20 * kNanosPerSecond);
  CHECK(l.Median() == 20 * kNanosPerSecond);  // one value: itself
  CHECK(l.max() == 20 * kNanosPerSecond);
  LatenessSummary m;
  std::vector<Nanos> v;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 10001; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    v.push_back(static_cast<Nanos>(x % 5'000'000'000ull));
    m.Add(v.back());
  }
  std::sort(v.begin(), v.end());
  const double want = static_cast<double>(v[5000]);
  CHECK(std::abs(static_cast<double>(m.Median()) - want) <= want / 32 + 1);
  CHECK(m.max() == v.back());
  CHECK(m.count() == 10001);
  m.Add(-5);  // (never negative; taken as 0)
  m.Add(kPlusInfinity);
  CHECK(m.max() == kPlusInfinity);
}

}  // namespace
}  // namespace logtide
