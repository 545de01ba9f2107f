#include "window/window_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "time/duration.h"
#include "util/quote.h"

namespace logtide {

Nanos WindowSpec::pane() const { return std::gcd(size, slide); }

std::string WindowSpec::ToString() const {
  // No offset, no suffix: the spelling (and so the query identity) of every window before
  // offsets.
  const std::string suffix = offset == 0 ? std::string() : ":offset=" + FormatSignedDuration(offset);
  switch (kind) {
    case Kind::kTumbling:
      if (calendar == Calendar::kWeeks) return fmt::format("tumbling:{}w{}", count, suffix);
      if (calendar == Calendar::kMonths) return fmt::format("tumbling:{}mo{}", count, suffix);
      return "tumbling:" + FormatDuration(size) + suffix;
    case Kind::kSliding:
      return "sliding:" + FormatDuration(size) + ":" + FormatDuration(slide) + suffix;
    case Kind::kSession:
      return "session:" + FormatDuration(gap);
  }
  return "";
}

std::string FormatSignedDuration(Nanos d) {
  return d < 0 ? "-" + FormatDuration(-d) : FormatDuration(d);
}

namespace {

constexpr Nanos kDay = 86400 * kNanosPerSecond;
constexpr Nanos kHour = 3600 * kNanosPerSecond;
// A month's offset stays inside its shortest month.
constexpr Nanos kMonthOffsetLimit = 28 * kDay;

}  // namespace

Status NormalizeOffset(WindowSpec* spec) {
  const Nanos written = spec->offset_written;
  spec->offset = 0;
  if (written == 0) return Status::Ok();
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument(
        fmt::format("--window {}: {}",
                    QuoteForMessage(spec->ToString() + ":offset=" + FormatSignedDuration(written)),
                    why));
  };
  if (spec->is_session())
    return bad("a session window has no grid to move: it starts at its first event");
  if (spec->is_calendar() && written % kNanosPerSecond != 0)
    return bad("a calendar window's offset is whole seconds on the local clock");
  Nanos period = spec->slide;
  switch (spec->calendar) {
    case WindowSpec::Calendar::kNone:
    case WindowSpec::Calendar::kWallClock:
      break;
    case WindowSpec::Calendar::kDays:
      period = spec->count * kDay;
      break;
    case WindowSpec::Calendar::kWeeks:
      period = spec->count * 7 * kDay;
      break;
    case WindowSpec::Calendar::kLocalGrid:
      period = kDay;  // the grid is anchored at each local day's start, moved by the offset
      break;
    case WindowSpec::Calendar::kMonths:
      if (written <= -kMonthOffsetLimit || written >= kMonthOffsetLimit)
        return bad("a month's offset must be shorter than 28 days (its shortest month)");
      spec->offset = written;
      return Status::Ok();
  }
  spec->offset = FloorMod(written, period);
  return Status::Ok();
}

Status ParseWindowSpec(std::string_view text, WindowSpec* out) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument(
        fmt::format("--window {}: {} (expected tumbling:SIZE, sliding:SIZE:SLIDE or "
                    "session:GAP, e.g. tumbling:5m)",
                    QuoteForMessage(text, /*backslash_quotes=*/true), why));
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
  // ":offset=DUR" after the durations: the grid's offset, possibly negative.
  if (parts.size() > 1 && parts.back().substr(0, 7) == "offset=") {
    std::string_view d = parts.back().substr(7);
    const bool negative = !d.empty() && d.front() == '-';
    if (negative) d.remove_prefix(1);
    Nanos offset = 0;
    if (!(st = ParseDuration(d, &offset)).ok()) return bad(fmt::format("offset: {}", st.message()));
    if (offset > kMaxWindowSpan) return bad("offset must be at most 100 years (36500d)");
    spec.offset_written = negative ? -offset : offset;
    parts.pop_back();
  }
  // Weeks and months: "Nw", "Nmo", N a whole number from 1 (a tumbling size only).
  auto calendar_unit = [&](std::string_view s, int64_t* n) -> WindowSpec::Calendar {
    WindowSpec::Calendar unit = WindowSpec::Calendar::kNone;
    if (s.size() > 2 && s.substr(s.size() - 2) == "mo") {
      unit = WindowSpec::Calendar::kMonths;
      s.remove_suffix(2);
    } else if (s.size() > 1 && s.back() == 'w') {
      unit = WindowSpec::Calendar::kWeeks;
      s.remove_suffix(1);
    } else {
      return unit;
    }
    int64_t v = 0;
    for (char c : s) {
      if (c < '0' || c > '9' || v > 100'000) return WindowSpec::Calendar::kNone;
      v = v * 10 + (c - '0');
    }
    *n = v;
    return unit;
  };
  if (parts[0] == "tumbling") {
    if (parts.size() != 2) return bad("tumbling takes one duration");
    spec.kind = WindowSpec::Kind::kTumbling;
    int64_t n = 0;
    spec.calendar = calendar_unit(parts[1], &n);
    if (spec.is_calendar()) {
      const bool weeks = spec.calendar == WindowSpec::Calendar::kWeeks;
      if (n <= 0)
        return bad(fmt::format("the number of {} must be at least 1", weeks ? "weeks" : "months"));
      spec.count = n;
      // Its nominal length: weeks of 7 days, months of 31 (WindowSpec::size).
      const __int128 longest =
          static_cast<__int128>(n) * (weeks ? 7 : 31) * 86400 * kNanosPerSecond;
      if (longest > kMaxWindowSpan) return bad("size must be at most 100 years (36500d)");
      spec.size = static_cast<Nanos>(longest);
    } else if (!(st = duration(parts[1], "size", &spec.size)).ok()) {
      return st;
    }
    spec.slide = spec.size;
  } else if (parts[0] == "sliding") {
    if (parts.size() != 3) return bad("sliding takes two durations, SIZE and SLIDE");
    for (size_t i = 1; i < 3; ++i) {
      int64_t n = 0;
      if (calendar_unit(parts[i], &n) != WindowSpec::Calendar::kNone)
        return bad(
            "weeks (w) and months (mo) are tumbling sizes only: a sliding window's "
            "size and slide are elapsed time");
    }
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
    // Flink's HOP (a "hopping" window in Kafka Streams and ksqlDB) is what logtide calls
    // sliding: a fixed size that advances by a slide.
    if (parts[0] == "hopping" || parts[0] == "hop")
      return bad(fmt::format("unknown window kind {}: a window of a size that advances by a "
                             "slide is sliding:SIZE:SLIDE here", QuoteForMessage(parts[0])));
    return bad(fmt::format("unknown window kind {}", QuoteForMessage(parts[0])));
  }
  if (!(st = NormalizeOffset(&spec)).ok()) return st;
  *out = spec;
  return Status::Ok();
}

Status SetWindowZone(const TimeZone& zone, WindowSpec* spec) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument(
        fmt::format("--tz {} with --window {}: {}", zone.name(), spec->ToString(), why));
  };
  switch (spec->kind) {
    case WindowSpec::Kind::kSliding:
      return bad(
          "sliding windows are elapsed time and their slides would cross daylight-saving "
          "changes with no single right answer (a slide of local hours, or of fixed length); "
          "use tumbling windows with --tz, or sliding windows without it");
    case WindowSpec::Kind::kSession:
      // A session is a run of events with gaps shorter than the gap, in elapsed time: a zone
      // changes nothing in it.
      spec->has_zone = true;
      spec->zone = zone;
      return Status::Ok();
    case WindowSpec::Kind::kTumbling:
      break;
  }
  WindowSpec s = *spec;
  s.has_zone = true;
  s.zone = zone;
  if (!s.is_calendar()) {
    const Nanos size = s.size;
    if (size % kDay == 0) {
      s.calendar = WindowSpec::Calendar::kDays;
      s.count = size / kDay;
    } else if (size > kDay) {
      return bad(
          "a window over a day must be whole days (2d), weeks (1w) or months (1mo) in "
          "the local calendar");
    } else if (kDay % size != 0) {
      return bad(
          "a window shorter than a day must divide the day (6h, 2h, 30m, 1m, ...), so "
          "that every local day starts a window at its midnight");
    } else if (size > kHour) {
      s.calendar = WindowSpec::Calendar::kWallClock;
    } else {
      s.calendar = WindowSpec::Calendar::kLocalGrid;
      // Always its own length, or shorter at the end of a day.
    }
  }
  Status st = NormalizeOffset(&s);
  if (!st.ok()) return st;
  *spec = s;
  return Status::Ok();
}

std::string CalendarWindowText(const WindowSpec& w) {
  auto n = [&](const char* one, const char* many) {
    return w.count == 1 ? std::string(one) : fmt::format("{} {}", w.count, many);
  };
  switch (w.calendar) {
    case WindowSpec::Calendar::kDays:
      return n("local days", "local days");
    case WindowSpec::Calendar::kWeeks:
      return n("ISO weeks (from Monday 00:00)", "ISO weeks (from Monday 00:00)");
    case WindowSpec::Calendar::kMonths:
      return n("months", "months");
    case WindowSpec::Calendar::kWallClock:
      return FormatDuration(w.size) + " on the local wall clock from each local midnight";
    case WindowSpec::Calendar::kLocalGrid:
      return FormatDuration(w.size) +
             " long from each local midnight (the last of a day ends at the next midnight)";
    case WindowSpec::Calendar::kNone:
      break;
  }
  return "";
}

WindowSpec::Bounds WindowSpec::Window(Nanos t) const {
  using absl::CivilDay;
  using absl::CivilMonth;
  using absl::CivilSecond;
  static const CivilDay kEpochDay(1970, 1, 1);
  static const CivilDay kEpochMonday(1969, 12, 29);
  static const CivilMonth kEpochMonth(1970, 1);
  // The local wall-clock bounds [*lo, *hi) of the window holding local time c.
  auto plain_bounds = [&](const CivilSecond& c, CivilSecond* lo, CivilSecond* hi) {
    switch (calendar) {
      case Calendar::kDays: {
        const CivilDay d = kEpochDay + FloorDiv(CivilDay(c) - kEpochDay, count) * count;
        *lo = CivilSecond(d);
        *hi = CivilSecond(d + count);
        break;
      }
      case Calendar::kWeeks: {
        const CivilDay d =
            kEpochMonday + FloorDiv(CivilDay(c) - kEpochMonday, 7 * count) * 7 * count;
        *lo = CivilSecond(d);
        *hi = CivilSecond(d + 7 * count);
        break;
      }
      case Calendar::kMonths: {
        const CivilMonth m = kEpochMonth + FloorDiv(CivilMonth(c) - kEpochMonth, count) * count;
        *lo = CivilSecond(m);
        *hi = CivilSecond(m + count);
        break;
      }
      case Calendar::kWallClock: {
        const int64_t step = size / kNanosPerSecond;
        const CivilSecond midnight{CivilDay(c)};
        *lo = midnight + FloorDiv(c - midnight, step) * step;
        *hi = *lo + step;
        break;
      }
      case Calendar::kLocalGrid:
      case Calendar::kNone:
        *lo = CivilSecond(CivilDay(c));
        *hi = CivilSecond(CivilDay(c) + 1);
        break;
    }
  };
  // The offset moves every local bound by the same local time: the window holding c is the
  // one holding c - offset, moved by the offset.
  const int64_t offset_s = offset / kNanosPerSecond;
  auto civil_bounds = [&](const CivilSecond& c, CivilSecond* lo, CivilSecond* hi) {
    plain_bounds(c - offset_s, lo, hi);
    *lo += offset_s;
    *hi += offset_s;
  };
  CivilSecond lo, hi;
  civil_bounds(zone.ToCivil(t), &lo, &hi);
  Nanos start = zone.FirstInstant(lo), end = zone.FirstInstant(hi);
  // The local clock shows lo or later at t, so start <= t; where it fell back across hi
  // before t, t is in a later window. (Bounded: a fall-back change moves a clock by hours.)
  for (int i = 0; i < 64 && t >= end; ++i) {
    civil_bounds(hi, &lo, &hi);
    start = end;
    end = zone.FirstInstant(hi);
  }
  for (int i = 0; i < 64 && t < start; ++i) {
    civil_bounds(lo - 1, &lo, &hi);
    end = start;
    start = zone.FirstInstant(lo);
  }
  if (calendar == Calendar::kLocalGrid) {
    const Nanos at = start + FloorDiv(t - start, size) * size;
    return Bounds{at, std::min(SatAdd(at, size), end)};
  }
  return Bounds{start, end};
}

void WindowSpec::WindowableRange(Nanos delay, Nanos lateness, Nanos* lo, Nanos* hi) const {
  // A window reaches at most its length, plus one step of alignment, on either side of the
  // event; the watermark is the event time less the delay; cleanup is the end plus lateness.
  // (A calendar window's size and slide are its longest length; its bounds are found in the
  // zone one day around the event, so add two days, and a calendar offset, which moves them
  // by up to its size. A fixed grid's offset is within one slide: the alignment step holds it.)
  const __int128 calendar_offset =
      !is_calendar() ? 0 : (offset < 0 ? -static_cast<__int128>(offset) : offset);
  const __int128 reach = static_cast<__int128>(is_session() ? gap : size) +
                         (is_session() ? gap : slide) + 1 + (is_calendar() ? 2 * kDay : 0) +
                         calendar_offset;
  const __int128 l = static_cast<__int128>(kMinusInfinity) + reach + delay;
  const __int128 h = static_cast<__int128>(kPlusInfinity) - reach - lateness;
  *lo = l > kPlusInfinity ? kPlusInfinity : static_cast<Nanos>(l);
  *hi = h < kMinusInfinity ? kMinusInfinity : static_cast<Nanos>(h);
}

}  // namespace logtide
