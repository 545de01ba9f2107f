// Idle inputs (--idle-timeout): per input, the wall-clock time since which it has produced no
// line. An input waited on (a quiet pipe, a followed file at its end, a file at its end under
// --hold) that has been quiet for the timeout is idle: it stops holding the watermark back
// until it produces a line again. When every input that holds the watermark is idle, event
// time goes on at wall-clock speed from the last line read (WallClockWatermark). Times come
// from a Clock (time/clock.h); this class never reads one. The quiet-since times are saved
// with the inputs' positions (input/input_set.h), so idleness carries across runs.
#pragma once

#include <algorithm>
#include <vector>

#include "time/timestamp.h"
#include "util/time_math.h"

namespace logtide {

class Idleness {
 public:
  // `timeout` 0: no input is ever idle. Every input counts as quiet since `start`.
  Idleness(int inputs, Nanos timeout, Nanos start)
      : since_(inputs, start), touched_(inputs, 0), timeout_(timeout) {}

  bool enabled() const { return timeout_ > 0; }
  Nanos timeout() const { return timeout_; }

  // Input i produced a line at `now`.
  void LineRead(int input, Nanos now) { since_[input] = now; }
  // Input i produced a line, at a time taken later by Settle (the clock is not read per line;
  // Settle runs whenever an input is waited on, so the time is late by at most that wait).
  void Touch(int input) { touched_[input] = 1; }
  void Settle(Nanos now) {
    for (size_t i = 0; i < since_.size(); ++i) {
      if (touched_[i]) since_[i] = now;
      touched_[i] = 0;
    }
  }
  // Input i has been quiet since `since` (restored from an earlier run). A time in the future
  // (the clock was set back) counts from now.
  void Restore(int input, Nanos since, Nanos now) { since_[input] = std::min(since, now); }
  Nanos quiet_since(int input) const { return since_[input]; }

  // Whether input i, waited on at `now`, is idle.
  bool IdleAt(int input, Nanos now) const {
    return enabled() && SatSub(now, since_[input]) >= timeout_;
  }

  // The watermark while every input is idle: `top` (the largest event time read, minus the
  // delay) plus the wall time since the last line of any input (or since an input that never
  // had one was first read, whichever is later: never early). Infinite when `top` is.
  Nanos WallClockWatermark(Nanos top, Nanos now) const {
    if (top == kMinusInfinity || top == kPlusInfinity) return top;
    Nanos last = kMinusInfinity;
    for (Nanos s : since_) last = std::max(last, s);
    return SatAdd(top, std::max<Nanos>(0, SatSub(now, last)));
  }

 private:
  std::vector<Nanos> since_;
  std::vector<char> touched_;
  Nanos timeout_;
};

}  // namespace logtide
