#include "watermark/watermark.h"

#include <catch2/catch.hpp>

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

}  // namespace
}  // namespace logtide
