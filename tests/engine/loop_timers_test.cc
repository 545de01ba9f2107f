#include "engine/loop_timers.h"

#include <catch2/catch.hpp>

#include <vector>

namespace logtide {
namespace {

std::vector<LoopTimers::Job> PopAll(LoopTimers* t, Nanos now) {
  std::vector<LoopTimers::Job> due;
  for (LoopTimers::Job j; t->PopDue(now, &j);) due.push_back(j);
  return due;
}

TEST_CASE("loop timers: due jobs pop by time, then by job order, once each") {
  LoopTimers t;
  CHECK_FALSE(t.any());
  t.Set(LoopTimers::kProgress, 1000, 200);  // due at 1200
  t.Set(LoopTimers::kCheckpoint, 1000, 500);  // due at 1500
  t.Set(LoopTimers::kFlush, 1100, 100);  // due at 1200, ties with progress: flush is first
  CHECK(t.any());
  CHECK(PopAll(&t, 1199).empty());
  CHECK(PopAll(&t, 1200) == std::vector<LoopTimers::Job>{LoopTimers::kFlush, LoopTimers::kProgress});
  CHECK_FALSE(t.armed(LoopTimers::kFlush));  // popped: the job sets its next timer
  CHECK(t.armed(LoopTimers::kCheckpoint));
  CHECK(PopAll(&t, 1600) == std::vector<LoopTimers::Job>{LoopTimers::kCheckpoint});
  CHECK_FALSE(t.any());
}

TEST_CASE("loop timers: a timer set again replaces the earlier one; one due at once pops next") {
  LoopTimers t;
  t.Set(LoopTimers::kCheckpoint, 0, 5000);
  t.Set(LoopTimers::kCheckpoint, 0, 100);
  CHECK(PopAll(&t, 100) == std::vector<LoopTimers::Job>{LoopTimers::kCheckpoint});
  t.Set(LoopTimers::kWindows, 100, 0);
  CHECK(PopAll(&t, 100) == std::vector<LoopTimers::Job>{LoopTimers::kWindows});
  t.Set(LoopTimers::kWindows, 100, 0);
  t.Cancel(LoopTimers::kWindows);
  CHECK(PopAll(&t, 10'000).empty());
}

TEST_CASE("loop timers: a clock set back does not hold the jobs back") {
  LoopTimers t;
  const Nanos s = 1'000'000'000;
  t.Set(LoopTimers::kCheckpoint, 100 * s, 5 * s);  // due at 105 s
  // The clock goes back an hour: the timer is further ahead than it was set, so it is due.
  CHECK(PopAll(&t, 100 * s - 3600 * s) == std::vector<LoopTimers::Job>{LoopTimers::kCheckpoint});
  // A clock that went back less than nothing (it moved on) keeps the timer where it was.
  t.Set(LoopTimers::kCheckpoint, 100 * s, 5 * s);
  CHECK(PopAll(&t, 101 * s).empty());
  CHECK(PopAll(&t, 105 * s) == std::vector<LoopTimers::Job>{LoopTimers::kCheckpoint});
}

}  // namespace
}  // namespace logtide
