#include "engine/time_bounds.h"

#include <fmt/format.h>

#include "time/duration.h"

namespace logtide {

BadKind TimeBounds::Why(Nanos t, Nanos watermark, std::string* reason) const {
  if (t < min_ || t > max_) {
    *reason = fmt::format(
        "event time {} is outside the times this query can window ({} to {}, from the window, "
        "--delay and --lateness)",
        FormatRfc3339(t), FormatRfc3339(min_), FormatRfc3339(max_));
    return BadKind::kTimeRange;
  }
  *reason = fmt::format("event time {} is more than {} ahead of the {} ({}; --max-future)",
                        FormatRfc3339(t), FormatDuration(max_future_),
                        watermark != kMinusInfinity ? "watermark" : "wall clock",
                        FormatRfc3339(Reference(watermark)));
  return BadKind::kTooFarAhead;
}

}  // namespace logtide
