// The event times a query takes: those its windows can hold (WindowSpec::WindowableRange: from
// the window, --delay and --lateness) and, with --max-future, none further ahead than that of
// the watermark (before there is one, the first events, of the wall clock). An event time
// outside them makes a bad line, with its reason.
#pragma once

#include <string>

#include "engine/config.h"
#include "time/clock.h"
#include "time/timestamp.h"
#include "util/status.h"
#include "util/time_math.h"

namespace logtide {

class TimeBounds {
 public:
  // REQUIRES: `clock` outlives this.
  TimeBounds(const EngineConfig& config, const Clock& clock)
      : max_future_(config.max_future), clock_(clock) {
    config.window.WindowableRange(config.delay, config.lateness, &min_, &max_);
  }

  // Whether the query takes event time `t` at `watermark`.
  bool Takes(Nanos t, Nanos watermark) const {
    return t >= min_ && t <= max_ && !TooFarAhead(t, watermark);
  }
  // Why it does not: the bad line's kind, and its reason in *reason.
  // REQUIRES: !Takes(t, watermark).
  BadKind Why(Nanos t, Nanos watermark, std::string* reason) const;

 private:
  Nanos Reference(Nanos watermark) const {
    return watermark != kMinusInfinity ? watermark : clock_.Now();
  }
  bool TooFarAhead(Nanos t, Nanos watermark) const {
    return max_future_ > 0 && t > SatAdd(Reference(watermark), max_future_);
  }

  Nanos min_ = kMinusInfinity, max_ = kPlusInfinity;
  Nanos max_future_;
  const Clock& clock_;
};

}  // namespace logtide
