// Window kinds and the assigner arithmetic: which windows an event time belongs to, and the
// lateness predicates. Pure functions of time; no state, no keys.
//
// Windows are half-open [start, end). Tumbling and sliding windows start at multiples of the
// slide (k * slide); tumbling is sliding with slide == size. They are kept as panes of
// gcd(size, slide): every event falls in exactly one pane, and a window is the union of the
// size/pane consecutive panes it covers.
#pragma once

#include <string>
#include <string_view>

#include "time/timestamp.h"
#include "util/status.h"
#include "util/time_math.h"

namespace logtide {

// The most windows one event may belong to (a sliding window's size / slide, rounded up): each
// is a record, so sliding:1000d:1ms would write 86 billion records per event.
inline constexpr int64_t kMaxWindowsPerEvent = 100'000;
// The longest window size, slide or session gap: 100 years of 365 days. Window ends must stay
// far inside the time range (time/timestamp.h) for the windows of real events.
inline constexpr Nanos kMaxWindowSpan = Nanos{100} * 365 * 24 * 3600 * 1'000'000'000;

struct WindowSpec {
  enum class Kind { kTumbling, kSliding, kSession };
  Kind kind = Kind::kTumbling;
  Nanos size = 0;   // tumbling, sliding
  Nanos slide = 0;  // tumbling (== size), sliding
  Nanos gap = 0;    // session

  bool is_session() const { return kind == Kind::kSession; }
  // Whether an event belongs to more than one window (sliding, with a slide smaller than the
  // size): only then may it come after some of its windows closed and before the others did.
  bool overlaps() const { return kind == Kind::kSliding && slide < size; }
  // The event times whose every window, firing and cleanup time (with this delay and
  // lateness) are finite Nanos: an event outside [*lo, *hi] cannot be windowed exactly.
  void WindowableRange(Nanos delay, Nanos lateness, Nanos* lo, Nanos* hi) const;
  // Pane length: gcd(size, slide). REQUIRES: !is_session().
  Nanos pane() const;
  // Start of the pane holding t.
  Nanos PaneStart(Nanos t) const { return FloorTo(t, pane()); }
  // Start of the latest window holding t (the largest k * slide <= t).
  Nanos LastWindowStart(Nanos t) const { return FloorTo(t, slide); }
  // End of the latest window holding t: the window that stays open longest.
  Nanos LastWindowEnd(Nanos t) const { return SatAdd(LastWindowStart(t), size); }
  // Smallest window end strictly greater than x.
  Nanos NextEndAfter(Nanos x) const {
    return SatAdd(SatAdd(FloorTo(SatSub(x, size), slide), slide), size);
  }

  // The command-line spelling, e.g. "sliding:1h:1m".
  std::string ToString() const;
};

// Parses tumbling:SIZE, sliding:SIZE:SLIDE or session:GAP. Fails with the rule that was broken:
// durations must be positive and at most kMaxWindowSpan, and for sliding, slide <= size and
// size / slide <= kMaxWindowsPerEvent.
Status ParseWindowSpec(std::string_view text, WindowSpec* out);

// A window whose end is `end` is late once the watermark reaches end + lateness: it takes no
// more events and its state is dropped (Flink's isWindowLate).
inline bool IsWindowLate(Nanos end, Nanos lateness, Nanos watermark) {
  return watermark >= SatAdd(end, lateness);
}

}  // namespace logtide
