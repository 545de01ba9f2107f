#include "window/window_label.h"

#include <absl/time/time.h>

namespace logtide {

namespace {

constexpr Nanos kMinute = 60 * kNanosPerSecond;
constexpr Nanos kDay = 86400 * kNanosPerSecond;

}  // namespace

Status WindowLabel::Create(const WindowSpec& spec, WindowLabel* out) {
  if (spec.kind == WindowSpec::Kind::kSliding) {
    return Status::InvalidArgument(
        "--window-label names tumbling windows by their place in the calendar, and --window " +
        spec.ToString() +
        " is sliding: sliding windows overlap, an instant in several of them, so one date or "
        "hour would name several (for windows that do not overlap, use tumbling:SIZE)");
  }
  if (spec.kind == WindowSpec::Kind::kSession) {
    return Status::InvalidArgument(
        "--window-label names tumbling windows by their place in the calendar, and --window " +
        spec.ToString() +
        " is a session window: its bounds are set by its key's events (the first one and the "
        "gap), not by the calendar, so window_start and window_end are its only names");
  }
  out->zone_ = &spec.zone;
  using Calendar = WindowSpec::Calendar;
  if (spec.calendar == Calendar::kWeeks) {
    out->format_ = "%G-W%V";
  } else if (spec.calendar == Calendar::kMonths) {
    out->format_ = "%Y-%m";
  } else if (spec.calendar == Calendar::kDays ||
             (spec.calendar == Calendar::kNone && spec.size % kDay == 0)) {
    out->format_ = "%Y-%m-%d";
  } else if (spec.size % kMinute == 0 && spec.offset % kMinute == 0) {
    out->format_ = "%Y-%m-%dT%H:%M";
  } else if (spec.size % kNanosPerSecond == 0 && spec.offset % kNanosPerSecond == 0) {
    out->format_ = "%Y-%m-%dT%H:%M:%S";
  } else {
    return Status::InvalidArgument(
        "--window-label names a window by its local start to the second at the finest, and "
        "the windows of --window " +
        spec.ToString() + " start within a second of each other (use whole seconds)");
  }
  return Status::Ok();
}

std::string WindowLabel::Describe() const {
  if (format_ == "%G-W%V") return "the ISO week-year and week (2024-W13)";
  if (format_ == "%Y-%m") return "the year and month (2024-03)";
  if (format_ == "%Y-%m-%d") return "the local date (2024-03-31)";
  if (format_ == "%Y-%m-%dT%H:%M")
    return "the local date and time to the minute (2024-03-31T06:00)";
  return "the local date and time to the second (2024-03-31T06:00:30)";
}

void WindowLabel::Append(Nanos start, std::string* out) const {
  out->append(absl::FormatTime(format_, absl::FromUnixNanos(start), zone_->zone()));
}

}  // namespace logtide
