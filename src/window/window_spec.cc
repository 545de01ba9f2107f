#include "window/window_spec.h"

#include <fmt/format.h>

#include <numeric>
#include <vector>

#include "time/duration.h"

namespace logtide {

Nanos WindowSpec::pane() const { return std::gcd(size, slide); }

std::string WindowSpec::ToString() const {
  switch (kind) {
    case Kind::kTumbling:
      return "tumbling:" + FormatDuration(size);
    case Kind::kSliding:
      return "sliding:" + FormatDuration(size) + ":" + FormatDuration(slide);
    case Kind::kSession:
      return "session:" + FormatDuration(gap);
  }
  return "";
}

Status ParseWindowSpec(std::string_view text, WindowSpec* out) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument(
        fmt::format("--window \"{}\": {} (expected tumbling:SIZE, sliding:SIZE:SLIDE or "
                    "session:GAP, e.g. tumbling:5m)",
                    text, why));
  };
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (true) {
    size_t colon = text.find(':', pos);
    parts.push_back(
        text.substr(pos, colon == std::string_view::npos ? std::string_view::npos : colon - pos));
    if (colon == std::string_view::npos) break;
    pos = colon + 1;
  }
  auto duration = [&](std::string_view s, const char* what, Nanos* d) -> Status {
    Status st = ParseDuration(s, d);
    if (!st.ok()) return bad(fmt::format("{}: {}", what, st.message()));
    if (*d <= 0) return bad(fmt::format("{} must be greater than 0", what));
    if (*d > kMaxWindowSpan) return bad(fmt::format("{} must be at most 100 years (36500d)", what));
    return Status::Ok();
  };
  WindowSpec spec;
  Status st;
  if (parts[0] == "tumbling") {
    if (parts.size() != 2) return bad("tumbling takes one duration");
    spec.kind = WindowSpec::Kind::kTumbling;
    if (!(st = duration(parts[1], "size", &spec.size)).ok()) return st;
    spec.slide = spec.size;
  } else if (parts[0] == "sliding") {
    if (parts.size() != 3) return bad("sliding takes two durations, SIZE and SLIDE");
    spec.kind = WindowSpec::Kind::kSliding;
    if (!(st = duration(parts[1], "size", &spec.size)).ok()) return st;
    if (!(st = duration(parts[2], "slide", &spec.slide)).ok()) return st;
    if (spec.slide > spec.size)
      return bad("slide must not exceed size (events between windows would be lost)");
    // Rounded up: a size that is not a multiple of the slide has windows of one more start.
    const int64_t per_event = (spec.size - 1) / spec.slide + 1;
    if (per_event > kMaxWindowsPerEvent) {
      return bad(fmt::format(
          "an event would belong to {} windows, one record each; at most {} are allowed "
          "(size / slide): use a larger slide",
          per_event, kMaxWindowsPerEvent));
    }
  } else if (parts[0] == "session") {
    if (parts.size() != 2) return bad("session takes one duration, the gap");
    spec.kind = WindowSpec::Kind::kSession;
    if (!(st = duration(parts[1], "gap", &spec.gap)).ok()) return st;
  } else {
    return bad(fmt::format("unknown window kind \"{}\"", parts[0]));
  }
  *out = spec;
  return Status::Ok();
}

void WindowSpec::WindowableRange(Nanos delay, Nanos lateness, Nanos* lo, Nanos* hi) const {
  // A window reaches at most its length, plus one step of alignment, on either side of the
  // event; the watermark is the event time less the delay; cleanup is the end plus lateness.
  const __int128 reach = static_cast<__int128>(is_session() ? gap : size) +
                         (is_session() ? gap : slide) + 1;
  const __int128 l = static_cast<__int128>(kMinusInfinity) + reach + delay;
  const __int128 h = static_cast<__int128>(kPlusInfinity) - reach - lateness;
  *lo = l > kPlusInfinity ? kPlusInfinity : static_cast<Nanos>(l);
  *hi = h < kMinusInfinity ? kMinusInfinity : static_cast<Nanos>(h);
}

}  // namespace logtide
