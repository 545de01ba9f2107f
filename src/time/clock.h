// The wall clock, for the few things that depend on it by design: the read loop's processing
// time (--idle-timeout: when an input counts as idle, and how far event time moves while every
// input is; flush deadlines, --checkpoint-interval and progress reports, engine/loop_timers.h).
// --max-future measures from it before there is a watermark (engine/time_bounds.h). Passed in,
// so that tests drive it; nothing else in the engine reads the time of day, and no output byte
// depends on it except through --idle-timeout, --max-future and --early-every, whose firings
// are processing-time timers (window/window_operator.h) (man/logtide.1).
#pragma once

#include <chrono>

#include "time/timestamp.h"

namespace logtide {

class Clock {
 public:
  virtual ~Clock() = default;
  // Nanoseconds since the epoch, as the system's real-time clock says.
  virtual Nanos Now() const = 0;
  // The system's clock.
  static const Clock& System();
};

inline const Clock& Clock::System() {
  struct SystemClock final : Clock {
    Nanos Now() const override {
      return std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    }
  };
  static const SystemClock clock;
  return clock;
}

}  // namespace logtide
