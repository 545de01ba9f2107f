// --window-label: a record's window named by its local start in the --tz zone (UTC without
// --tz), in the calendar unit of the window: "2024-03-31" for days, "2024-W13" for ISO weeks
// (ISO week-year and week), "2024-03" for months, and "2024-03-31T06:00" (to the minute, or to
// the second where the grid is not whole minutes) for sizes under a day or not whole days.
// The text comes from absl::FormatTime with the zone; no calendar arithmetic is done here.
#pragma once

#include <string>

#include "time/time_zone.h"
#include "time/timestamp.h"
#include "util/status.h"
#include "window/window_spec.h"

namespace logtide {

class WindowLabel {
 public:
  // Chooses the label's form for `spec`'s windows. Fails, naming the reason, for sliding
  // windows (an instant is in several, overlapping ones), session windows (their bounds are
  // events', not the calendar's) and a grid finer than whole seconds (two windows would have
  // one label). `spec` must outlive the label.
  static Status Create(const WindowSpec& spec, WindowLabel* out);

  // Appends the label of the window starting at `start`.
  void Append(Nanos start, std::string* out) const;

  // The absl::FormatTime format used ("%Y-%m-%d", "%G-W%V", "%Y-%m", "%Y-%m-%dT%H:%M", ...).
  const std::string& format() const { return format_; }
  // The form in words, with an example: "the local date (2024-03-31)".
  std::string Describe() const;

 private:
  const TimeZone* zone_ = nullptr;
  std::string format_;
};

}  // namespace logtide
