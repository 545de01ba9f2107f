#include "time/time_format.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace logtide {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) { return c == ' ' || c == '\t'; }
char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

// "-12", "1700000000", "1700000000.25": what the pattern %s reads as epoch seconds.
bool LooksLikeEpochNumber(std::string_view text) {
  size_t i = (!text.empty() && text[0] == '-') ? 1 : 0;
  size_t digits = 0, dots = 0;
  for (; i < text.size(); ++i) {
    if (IsDigit(text[i])) ++digits;
    else if (text[i] == '.' && dots == 0) ++dots;
    else return false;
  }
  return digits > 0;
}

constexpr const char* kMonths[] = {"january",   "february", "march",    "april",
                                   "may",       "june",     "july",     "august",
                                   "september", "october",  "november", "december"};
constexpr const char* kWeekdays[] = {"sunday",   "monday", "tuesday", "wednesday",
                                     "thursday", "friday", "saturday"};

// Matches a full or three-letter name from `names` at text[*pos], case-insensitively.
int MatchName(std::string_view text, size_t* pos, const char* const* names, int count) {
  for (int i = 0; i < count; ++i) {
    size_t len = std::strlen(names[i]);
    for (size_t n : {len, size_t{3}}) {
      if (*pos + n > text.size()) continue;
      bool eq = true;
      for (size_t k = 0; k < n && eq; ++k) eq = Lower(text[*pos + k]) == names[i][k];
      if (eq) {
        *pos += n;
        return i;
      }
    }
  }
  return -1;
}

// Reads 1..max_digits digits.
bool ReadNumber(std::string_view text, size_t* pos, int max_digits, int64_t* out) {
  int64_t v = 0;
  int n = 0;
  while (n < max_digits && *pos < text.size() && IsDigit(text[*pos])) {
    v = v * 10 + (text[(*pos)++] - '0');
    ++n;
  }
  *out = v;
  return n > 0;
}

// Reads fraction digits (at least one) into nanoseconds, truncating past nine digits.
bool ReadFraction(std::string_view text, size_t* pos, int64_t* nanos) {
  int digits = 0;
  int64_t frac = 0;
  while (*pos < text.size() && IsDigit(text[*pos])) {
    if (digits < 9) frac = frac * 10 + (text[*pos] - '0');
    ++digits;
    ++*pos;
  }
  for (int i = digits; i < 9; ++i) frac *= 10;
  *nanos = frac;
  return digits > 0;
}

constexpr std::string_view kDirectives = "YmdeHMSfyzZbBhaApIsTFDR%";

}  // namespace

int64_t AutoEpochUnit(double magnitude) {
  if (magnitude < 1e11) return kNanosPerSecond;
  if (magnitude < 1e14) return 1'000'000;
  if (magnitude < 1e17) return 1'000;
  return 1;
}

Status EpochTextToNanos(std::string_view text, int64_t nanos_per_unit, Nanos* out) {
  auto range = [&] {
    return Status::DataError(BadKind::kTimeRange, fmt::format(
        "epoch time {} is outside the supported range (1677-09-21 to 2262-04-11)", text));
  };
  size_t pos = 0;
  bool neg = false;
  if (pos < text.size() && text[pos] == '-') {
    neg = true;
    ++pos;
  }
  int64_t ipart = 0;
  size_t int_start = pos;
  bool overflow = false;
  while (pos < text.size() && IsDigit(text[pos])) {
    if (__builtin_mul_overflow(ipart, 10, &ipart) ||
        __builtin_add_overflow(ipart, text[pos] - '0', &ipart)) {
      overflow = true;
    }
    ++pos;
  }
  if (pos == int_start) return Status::DataError(BadKind::kBadTime, fmt::format("bad epoch number \"{}\"", text));
  int64_t frac_num = 0, frac_den = 1;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    while (pos < text.size() && IsDigit(text[pos])) {
      if (frac_den < 1'000'000'000'000'000LL) {
        frac_num = frac_num * 10 + (text[pos] - '0');
        frac_den *= 10;
      }
      ++pos;
    }
  }
  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
    // Exponent form: go through double; exact to about a microsecond for current epochs.
    double v = 0;
    std::from_chars(text.data(), text.data() + text.size(), v);
    double ns = v * static_cast<double>(nanos_per_unit);
    if (!std::isfinite(ns) || std::fabs(ns) >= 9.2e18) return range();
    *out = static_cast<Nanos>(std::llround(ns));
    return Status::Ok();
  }
  if (pos != text.size()) return Status::DataError(BadKind::kBadTime, fmt::format("bad epoch number \"{}\"", text));
  if (overflow) return range();
  // nanos = ipart * unit + frac_num * unit / frac_den, truncated toward zero.
  __int128 ns = static_cast<__int128>(ipart) * nanos_per_unit +
                static_cast<__int128>(frac_num) * nanos_per_unit / frac_den;
  if (neg) ns = -ns;
  if (ns > INT64_MAX || ns < INT64_MIN) return range();
  *out = static_cast<Nanos>(ns);
  return Status::Ok();
}

Status TimeFormat::Create(std::string_view spec, TimeFormat* out) {
  TimeFormat f;
  f.spec_ = std::string(spec);
  if (spec == "auto") {
    f.kind_ = Kind::kAuto;
  } else if (spec == "rfc3339") {
    f.kind_ = Kind::kRfc3339;
  } else if (spec == "epoch_s") {
    f.kind_ = Kind::kEpochS;
  } else if (spec == "epoch_ms") {
    f.kind_ = Kind::kEpochMs;
  } else if (spec == "epoch_us") {
    f.kind_ = Kind::kEpochUs;
  } else if (spec == "epoch_ns") {
    f.kind_ = Kind::kEpochNs;
  } else if (spec.find('%') != std::string_view::npos) {
    f.kind_ = Kind::kPattern;
    bool year = false, month = false, day = false, epoch = false;
    for (size_t i = 0; i < spec.size(); ++i) {
      char c = spec[i];
      if (IsSpace(c)) {
        if (f.items_.empty() || f.items_.back().directive != ' ') f.items_.push_back({' ', 0});
        continue;
      }
      if (c != '%') {
        f.items_.push_back({0, c});
        continue;
      }
      if (++i == spec.size())
        return Status::InvalidArgument(
            fmt::format("--time-format \"{}\": pattern ends with a lone '%'", spec));
      char d = spec[i];
      if (kDirectives.find(d) == std::string_view::npos) {
        return Status::InvalidArgument(
            fmt::format("--time-format \"{}\": unknown directive %{} (known: %Y %y %m %d %e %H %I "
                        "%p %M %S %f %z %Z %b %B %h %a %A %s %T %F %D %R %%)",
                        spec, d));
      }
      if (d == '%') {
        f.items_.push_back({0, '%'});
        continue;
      }
      year |= d == 'Y' || d == 'y' || d == 'F' || d == 'D';
      month |= d == 'm' || d == 'b' || d == 'B' || d == 'h' || d == 'F' || d == 'D';
      day |= d == 'd' || d == 'e' || d == 'F' || d == 'D';
      epoch |= d == 's';
      // Composite directives are expanded here, once, so parsing sees only simple ones.
      std::string_view parts = d == 'T'   ? "H:M:S"
                               : d == 'R' ? "H:M"
                               : d == 'F' ? "Y-m-d"
                               : d == 'D' ? "m/d/y"
                                          : "";
      if (parts.empty()) {
        f.items_.push_back({d, 0});
      } else {
        for (char p : parts)
          f.items_.push_back(p == ':' || p == '-' || p == '/' ? Item{0, p} : Item{p, 0});
      }
    }
    // %S takes an optional fraction (.123 or ,123) unless the pattern spells it out itself.
    for (size_t i = 0; i + 1 < f.items_.size(); ++i) {
      const Item& next = f.items_[i + 1];
      if (f.items_[i].directive == 'S' && (next.directive == 0 || next.directive == 'f'))
        f.items_[i].literal = 1;
    }
    if (!epoch && !(year && month && day)) {
      return Status::InvalidArgument(
          fmt::format("--time-format \"{}\": the pattern must determine a date: a year (%Y or %y), "
                      "a month (%m, %b or %B) and a day (%d or %e), or %s",
                      spec));
    }
  } else {
    return Status::InvalidArgument(
        fmt::format("--time-format \"{}\": expected auto, rfc3339, epoch_s, epoch_ms, epoch_us, "
                    "epoch_ns or a strptime-style pattern with % directives",
                    spec));
  }
  *out = std::move(f);
  return Status::Ok();
}

Status TimeFormat::ParseString(std::string_view text, Nanos* out) const {
  switch (kind_) {
    case Kind::kAuto:
    case Kind::kRfc3339:
      // With --tz, a time that ends in a digit with no +hh:mm / -hh:mm before it has no
      // offset: a local time.
      if (zoned_ && !text.empty() && IsDigit(text.back()) &&
          (text.size() < 6 || (text[text.size() - 6] != '+' && text[text.size() - 6] != '-'))) {
        CivilTime c;
        Status s = ParseLocalDateTime(text, &c);
        if (!s.ok()) return s;
        return LocalToInstant(c, text, out);
      }
      return ParseRfc3339(text, out, &rfc3339_cache_);
    case Kind::kPattern:
      return ParsePattern(text, out);
    default:
      // Epoch seconds written as a string ("1700000000") are read by the pattern %s.
      if (kind_ == Kind::kEpochS && LooksLikeEpochNumber(text))
        return Status::DataError(BadKind::kBadTime, fmt::format(
            "time is a string \"{}\" but --time-format {} expects a number: for epoch seconds "
            "in a string use --time-format %s", text, spec_));
      return Status::DataError(BadKind::kBadTime, fmt::format(
          "time is a string \"{}\" but --time-format {} expects a number", text, spec_));
  }
}

Status TimeFormat::ParseNumber(std::string_view text, Nanos* out) const {
  int64_t unit;
  switch (kind_) {
    case Kind::kAuto: {
      // from_chars: no copy of the text, so no allocation per event.
      double v = 0;
      std::from_chars(text.data(), text.data() + text.size(), v);
      unit = AutoEpochUnit(std::fabs(v));
    } break;
    case Kind::kEpochS:
      unit = kNanosPerSecond;
      break;
    case Kind::kEpochMs:
      unit = 1'000'000;
      break;
    case Kind::kEpochUs:
      unit = 1'000;
      break;
    case Kind::kEpochNs:
      unit = 1;
      break;
    default:
      return Status::DataError(BadKind::kBadTime, 
          fmt::format("time is a number ({}) but --time-format {} expects a string", text, spec_));
  }
  return EpochTextToNanos(text, unit, out);
}

Status TimeFormat::ParsePattern(std::string_view text, Nanos* out) const {
  CivilTime c;
  size_t pos = 0;
  int hour12 = -1;
  int pm = -1;
  bool have_epoch = false;
  bool have_offset = false;  // %z or %Z: not a local time
  Nanos epoch = 0;
  int64_t v;
  auto bad = [&](const std::string& why, BadKind kind = BadKind::kBadTime) {
    return Status::DataError(
        kind, fmt::format("time \"{}\" does not match --time-format \"{}\": {}", text, spec_, why));
  };
  auto number = [&](int max_digits, int64_t* dst) {
    return ReadNumber(text, &pos, max_digits, dst);
  };
  for (const Item& it : items_) {
    char d = it.directive;
    if (d == 0) {
      if (pos >= text.size() || text[pos] != it.literal)
        return bad(fmt::format("expected '{}' at offset {}", it.literal, pos));
      ++pos;
      continue;
    }
    if (d == ' ') {
      while (pos < text.size() && IsSpace(text[pos])) ++pos;
      continue;
    }
    switch (d) {
      case 'Y':
        if (!number(4, &c.year)) return bad("expected a year");
        break;
      case 'y':
        if (!number(2, &v)) return bad("expected a 2-digit year");
        c.year = v < 69 ? 2000 + v : 1900 + v;
        break;
      case 'm':
        if (!number(2, &v)) return bad("expected a month number");
        c.month = static_cast<int>(v);
        break;
      case 'e':
        while (pos < text.size() && text[pos] == ' ') ++pos;
        [[fallthrough]];
      case 'd':
        if (!number(2, &v)) return bad("expected a day of the month");
        c.day = static_cast<int>(v);
        break;
      case 'H':
        if (!number(2, &v)) return bad("expected an hour");
        c.hour = static_cast<int>(v);
        break;
      case 'I':
        if (!number(2, &v) || v < 1 || v > 12) return bad("expected an hour from 1 to 12");
        hour12 = static_cast<int>(v);
        break;
      case 'p': {
        if (pos + 2 > text.size()) return bad("expected AM or PM");
        char a = Lower(text[pos]), m = Lower(text[pos + 1]);
        if ((a != 'a' && a != 'p') || m != 'm') return bad("expected AM or PM");
        pm = a == 'p';
        pos += 2;
        break;
      }
      case 'M':
        if (!number(2, &v)) return bad("expected minutes");
        c.minute = static_cast<int>(v);
        break;
      case 'S':
        if (!number(2, &v)) return bad("expected seconds");
        c.second = static_cast<int>(v);
        if (it.literal == 0 && pos + 1 < text.size() && (text[pos] == '.' || text[pos] == ',') &&
            IsDigit(text[pos + 1])) {
          ++pos;
          ReadFraction(text, &pos, &c.nanos);
        }
        break;
      case 'f':
        if (!ReadFraction(text, &pos, &c.nanos)) return bad("expected fraction digits");
        break;
      case 'z': {
        have_offset = true;
        if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
          ++pos;
          c.offset_seconds = 0;
          break;
        }
        if (pos >= text.size() || (text[pos] != '+' && text[pos] != '-'))
          return bad("expected a UTC offset (+hhmm, +hh:mm or Z)");
        int sign = text[pos++] == '-' ? -1 : 1;
        int64_t oh = 0, om = 0;
        size_t start = pos;
        if (!ReadNumber(text, &pos, 2, &oh) || pos - start != 2)
          return bad("expected a UTC offset (+hhmm, +hh:mm or Z)");
        if (pos < text.size() && text[pos] == ':') ++pos;
        start = pos;
        if (ReadNumber(text, &pos, 2, &om) && pos - start != 2)
          return bad("expected 2-digit offset minutes");
        if (oh > 23 || om > 59) return bad("UTC offset out of range");
        c.offset_seconds = static_cast<int>(sign * (oh * 3600 + om * 60));
        break;
      }
      case 'Z': {
        have_offset = true;
        std::string_view rest = text.substr(pos);
        if (rest.substr(0, 3) == "UTC" || rest.substr(0, 3) == "GMT") {
          pos += 3;
        } else if (rest.substr(0, 1) == "Z") {
          pos += 1;
        } else {
          return bad(
              "expected the zone name UTC, GMT or Z (other zone names are ambiguous; use %z)");
        }
        break;
      }
      case 'b':
      case 'B':
      case 'h': {
        int m = MatchName(text, &pos, kMonths, 12);
        if (m < 0) return bad("expected a month name");
        c.month = m + 1;
        break;
      }
      case 'a':
      case 'A':
        if (MatchName(text, &pos, kWeekdays, 7) < 0) return bad("expected a weekday name");
        break;
      case 's': {
        size_t start = pos;
        if (pos < text.size() && text[pos] == '-') ++pos;
        while (pos < text.size() && (IsDigit(text[pos]) || text[pos] == '.')) ++pos;
        Status s = EpochTextToNanos(text.substr(start, pos - start), kNanosPerSecond, &epoch);
        if (!s.ok()) return bad(s.message(), s.bad_kind());
        have_epoch = true;
        break;
      }
    }
  }
  if (pos != text.size())
    return bad(fmt::format("unexpected text \"{}\" after the pattern", text.substr(pos)));
  if (have_epoch) {
    *out = epoch;
    return Status::Ok();
  }
  if (hour12 >= 0) {
    c.hour = hour12 % 12 + (pm == 1 ? 12 : 0);
  } else if (pm >= 0) {
    return bad("%p needs %I for the hour");
  }
  Status s = CivilToNanos(c, out);
  if (!s.ok()) return bad(s.message(), s.bad_kind());
  if (zoned_ && !have_offset) return LocalToInstant(c, text, out);
  return s;
}

Status TimeFormat::LocalToInstant(const CivilTime& c, std::string_view text, Nanos* out) const {
  Status s = zone_.LocalToInstant(
      absl::CivilSecond(c.year, c.month, c.day, c.hour, c.minute, c.second), c.nanos, out);
  if (!s.ok())
    return Status::DataError(BadKind::kBadTime, fmt::format("\"{}\": {}", text, s.message()));
  return s;
}

}  // namespace logtide
