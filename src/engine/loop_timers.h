// The read loop's processing-time timers: each periodic job of the loop (flushing what was
// decided, a timed checkpoint, a progress report, the window operator's own processing-time
// timers) is a timer at the processing time it is next due, on the job's Clock (time/clock.h).
// The loop's tick pops the due ones, in (time, job) order, and each job sets its next timer.
// Nothing here reads a clock: the loop passes `now`.
#pragma once

#include <array>
#include <cstdint>

#include "time/timestamp.h"
#include "util/time_math.h"

namespace logtide {

class LoopTimers {
 public:
  // In the order due jobs run at one tick when their times are equal.
  enum Job : uint8_t {
    kWindows,     // the window operator's processing-time timers (WindowOperator::OnProcessingTime:
                  // --early-every), each firing followed by a checkpoint under --state
    kFlush,       // live input: what was decided goes out at a deadline
    kCheckpoint,  // --checkpoint-interval
    kProgress,    // a progress report
    kJobs
  };

  // Job `j` is due `after` from `now` (replacing its earlier timer).
  void Set(Job j, Nanos now, Nanos after) {
    due_[j] = SatAdd(now, after);
    after_[j] = after;
  }
  void Cancel(Job j) { due_[j] = kNone; }
  bool armed(Job j) const { return due_[j] != kNone; }
  // Whether any job has a timer.
  bool any() const {
    for (Nanos d : due_) {
      if (d != kNone) return true;
    }
    return false;
  }

  // Pops the earliest job due at `now` into *j (its timer is cleared: the job sets its next one);
  // false when none is. A clock set back by more than a timer's distance does not hold the
  // jobs back: a timer further ahead of `now` than it was set counts as due.
  bool PopDue(Nanos now, Job* j) {
    int best = -1;
    for (int k = 0; k < kJobs; ++k) {
      const Nanos d = due_[k];
      if (d == kNone || (d > now && SatSub(d, now) <= after_[k])) continue;
      if (best < 0 || d < due_[best]) best = k;
    }
    if (best < 0) return false;
    *j = static_cast<Job>(best);
    due_[best] = kNone;
    return true;
  }

 private:
  static constexpr Nanos kNone = kPlusInfinity;
  std::array<Nanos, kJobs> due_ = {kNone, kNone, kNone, kNone};
  std::array<Nanos, kJobs> after_ = {};
};

}  // namespace logtide
