// Window kinds and the assigner arithmetic: which windows an event time belongs to, and the
// lateness predicates. Pure functions of time; no state, no keys.
//
// Windows are half-open [start, end). Tumbling and sliding windows start at multiples of the
// slide (k * slide); tumbling is sliding with slide == size. They are kept as panes of
// gcd(size, slide): every event falls in exactly one pane, and a window is the union of the
// size/pane consecutive panes it covers.
//
// Calendar windows (WindowSpec::calendar != kNone: with --tz, and weeks and months always) are
// tumbling windows whose bounds are local wall-clock times in a zone, each taken as the first
// instant the local clock shows it (TimeZone::FirstInstant): local days, ISO weeks and months,
// sub-day sizes that divide a day on the local clock, and sizes of an hour or less on a grid of
// fixed length anchored at each local midnight. Their lengths vary (a 23- or 25-hour day), so
// the arithmetic below goes through the zone for them; one pane is one window.
#pragma once

#include <string>
#include <string_view>

#include "time/time_zone.h"
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
  // How a tumbling window's bounds are found: kNone, on the fixed grid of k * size from
  // 1970-01-01T00:00Z; the others in `zone`: `count` local days (counted from 1970-01-01),
  // ISO weeks (from Monday 1969-12-29) or months (from 1970-01); kWallClock, a size over an hour
  // that divides a day, from each local midnight on the wall clock; kLocalGrid, a size of an
  // hour or less that divides a day, fixed lengths from each local midnight, the last one of a
  // day cut at the next midnight.
  enum class Calendar { kNone, kDays, kWeeks, kMonths, kWallClock, kLocalGrid };
  Kind kind = Kind::kTumbling;
  // tumbling, sliding; for a calendar window its nominal length (weeks of 7 days, months of 31;
  // a local day may be 23 or 25 hours long): its bounds come from Window().
  Nanos size = 0;
  Nanos slide = 0;  // tumbling (== size), sliding
  Nanos gap = 0;    // session
  Calendar calendar = Calendar::kNone;
  int64_t count = 0;  // kDays, kWeeks, kMonths: how many in a window
  // The grid's offset (":offset=DUR"): windows start at offset + k * slide instead of k * slide;
  // a calendar window's local bounds move by it on the local clock (local days from 06:00,
  // weeks from Sunday). Normalised (NormalizeOffset): in [0, slide) on the fixed grid, in
  // [0, the calendar period) for days, weeks and wall-clock sizes, within (-28d, 28d) for months.
  // `offset_written` is as the flag gave it, kept for SetWindowZone to normalise again.
  Nanos offset = 0;
  Nanos offset_written = 0;
  // --tz (has_zone): the zone of calendar windows and of local times; UTC without it.
  bool has_zone = false;
  TimeZone zone;

  bool is_calendar() const { return calendar != Calendar::kNone; }

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
  Nanos PaneStart(Nanos t) const {
    if (is_calendar()) [[unlikely]]
      return Window(t).start;
    return OnGrid(t, pane());
  }
  // Start of the latest window holding t (the largest offset + k * slide <= t).
  Nanos LastWindowStart(Nanos t) const {
    if (is_calendar()) [[unlikely]]
      return Window(t).start;
    return OnGrid(t, slide);
  }
  // End of the latest window holding t: the window that stays open longest.
  Nanos LastWindowEnd(Nanos t) const {
    if (is_calendar()) [[unlikely]]
      return Window(t).end;
    return SatAdd(LastWindowStart(t), size);
  }
  // Smallest window end strictly greater than x.
  Nanos NextEndAfter(Nanos x) const {
    if (is_calendar()) [[unlikely]]
      return Window(x).end;
    return SatAdd(SatAdd(OnGrid(SatSub(x, size), slide), slide), size);
  }
  // Start of the window ending at `end`. REQUIRES: `end` is a window end.
  Nanos StartOfWindowEnding(Nanos end) const {
    if (is_calendar()) [[unlikely]]
      return Window(SatSub(end, 1)).start;
    return SatSub(end, size);
  }
  // End of the window starting at `start`. REQUIRES: `start` is a window start.
  Nanos EndOfWindowStarting(Nanos start) const {
    if (is_calendar()) [[unlikely]]
      return Window(start).end;
    return SatAdd(start, size);
  }

  struct Bounds {
    Nanos start, end;
  };
  // The calendar window holding t: [start, end), start <= t < end. REQUIRES: is_calendar().
  Bounds Window(Nanos t) const;

  // The command-line spelling, e.g. "sliding:1h:1m", "tumbling:1d:offset=6h".
  std::string ToString() const;

  // The largest offset + k * unit <= t. REQUIRES: unit > 0 divides slide, offset in [0, slide).
  Nanos OnGrid(Nanos t, Nanos unit) const {
    if (offset == 0) return FloorTo(t, unit);
    const Nanos f = FloorTo(SatSub(t, offset), unit);
    return f == kMinusInfinity ? f : SatAdd(f, offset);
  }
};

// Parses tumbling:SIZE, sliding:SIZE:SLIDE or session:GAP, the first two with an optional
// ":offset=DUR" (DUR may be negative). Fails with the rule that was broken:
// durations must be positive and at most kMaxWindowSpan, and for sliding, slide <= size and
// size / slide <= kMaxWindowsPerEvent.
// Weeks (1w, 2w) and months (1mo, 3mo) are tumbling sizes only: calendar windows, in UTC
// until SetWindowZone gives a zone.
Status ParseWindowSpec(std::string_view text, WindowSpec* out);

// Sets spec->offset from spec->offset_written for the spec's kind (see WindowSpec::offset).
// Fails for a session window, a calendar window's offset that is not whole seconds, and a
// month's offset of 28 days or more either way.
Status NormalizeOffset(WindowSpec* spec);

// "6h", "-1d": a duration with its sign.
std::string FormatSignedDuration(Nanos d);

// Returns a calendar window in words: "local days", "2 ISO weeks (from Monday)", "months",
// "6h on the local wall clock from each local midnight", "1h from each local midnight".
// REQUIRES: spec.is_calendar().
// (Without the offset.)
std::string CalendarWindowText(const WindowSpec& spec);

// Applies --tz: tumbling windows become calendar windows in `zone` (whole days, weeks, months,
// or a size that divides a day); session windows keep their gaps of elapsed time (the zone only
// reads local times). Fails for sliding windows, and for a tumbling size the local calendar
// cannot hold (over a day and not whole days; over an hour and not dividing a day; an hour or
// less and not dividing a day), naming the rule.
Status SetWindowZone(const TimeZone& zone, WindowSpec* spec);

// A window whose end is `end` is late once the watermark reaches end + lateness: it takes no
// more events and its state is dropped (Flink's isWindowLate).
inline bool IsWindowLate(Nanos end, Nanos lateness, Nanos watermark) {
  return watermark >= SatAdd(end, lateness);
}

}  // namespace logtide
