#include "time/timestamp.h"

#include <chrono>

#include <fmt/format.h>

#include "util/time_math.h"

namespace logtide {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads exactly `n` digits at text[*pos], advancing *pos.
bool ReadDigits(std::string_view text, size_t* pos, int n, int64_t* out) {
  if (*pos + n > text.size()) return false;
  int64_t v = 0;
  for (int i = 0; i < n; ++i) {
    char c = text[*pos + i];
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

}  // namespace

Status CivilToNanos(const CivilTime& c, Nanos* out) {
  using namespace std::chrono;
  if (c.month < 1 || c.month > 12) return Status::DataError(fmt::format("month {} out of range", c.month));
  if (c.year < -9999 || c.year > 99999) return Status::DataError("year out of range");
  year_month_day ymd{year{static_cast<int>(c.year)}, month{static_cast<unsigned>(c.month)},
                     day{static_cast<unsigned>(c.day < 1 ? 0 : c.day)}};
  if (c.day < 1 || !ymd.ok()) {
    return Status::DataError(fmt::format("day {} out of range for {:04}-{:02}", c.day, c.year, c.month));
  }
  if (c.hour < 0 || c.hour > 23) return Status::DataError(fmt::format("hour {} out of range", c.hour));
  if (c.minute < 0 || c.minute > 59) return Status::DataError(fmt::format("minute {} out of range", c.minute));
  if (c.second < 0 || c.second > 59) return Status::DataError(fmt::format("second {} out of range", c.second));
  if (c.nanos < 0 || c.nanos >= kNanosPerSecond) return Status::DataError("fraction out of range");
  int64_t days = sys_days{ymd}.time_since_epoch().count();
  int64_t secs = days * 86400 + c.hour * 3600 + c.minute * 60 + c.second - c.offset_seconds;
  int64_t ns;
  if (__builtin_mul_overflow(secs, kNanosPerSecond, &ns) ||
      __builtin_add_overflow(ns, c.nanos, &ns)) {
    return Status::DataError("timestamp outside the supported range (1677-09-21 to 2262-04-11)");
  }
  *out = ns;
  return Status::Ok();
}

Status ParseRfc3339(std::string_view text, Nanos* out) {
  CivilTime c;
  size_t pos = 0;
  int64_t v;
  auto bad = [&](const char* what) {
    return Status::DataError(fmt::format("not an RFC 3339 timestamp ({}): \"{}\"", what, text));
  };
  if (!ReadDigits(text, &pos, 4, &c.year)) return bad("expected a 4-digit year");
  if (pos >= text.size() || text[pos++] != '-') return bad("expected '-' after the year");
  if (!ReadDigits(text, &pos, 2, &v)) return bad("expected a 2-digit month");
  c.month = static_cast<int>(v);
  if (pos >= text.size() || text[pos++] != '-') return bad("expected '-' after the month");
  if (!ReadDigits(text, &pos, 2, &v)) return bad("expected a 2-digit day");
  c.day = static_cast<int>(v);
  if (pos >= text.size() || (text[pos] != 'T' && text[pos] != 't' && text[pos] != ' ')) {
    return bad("expected 'T' between date and time");
  }
  ++pos;
  if (!ReadDigits(text, &pos, 2, &v)) return bad("expected a 2-digit hour");
  c.hour = static_cast<int>(v);
  if (pos >= text.size() || text[pos++] != ':') return bad("expected ':' after the hour");
  if (!ReadDigits(text, &pos, 2, &v)) return bad("expected 2-digit minutes");
  c.minute = static_cast<int>(v);
  if (pos >= text.size() || text[pos++] != ':') return bad("expected ':' after the minutes");
  if (!ReadDigits(text, &pos, 2, &v)) return bad("expected 2-digit seconds");
  c.second = static_cast<int>(v);
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int digits = 0;
    int64_t frac = 0;
    while (pos < text.size() && IsDigit(text[pos])) {
      if (digits < 9) frac = frac * 10 + (text[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return bad("expected digits after '.'");
    for (int i = digits; i < 9; ++i) frac *= 10;
    c.nanos = frac;
  }
  if (pos >= text.size()) return bad("missing UTC offset ('Z' or +hh:mm)");
  char z = text[pos++];
  if (z == 'Z' || z == 'z') {
    c.offset_seconds = 0;
  } else if (z == '+' || z == '-') {
    int64_t oh, om;
    if (!ReadDigits(text, &pos, 2, &oh) || pos >= text.size() || text[pos++] != ':' ||
        !ReadDigits(text, &pos, 2, &om) || oh > 23 || om > 59) {
      return bad("bad UTC offset, expected +hh:mm");
    }
    c.offset_seconds = static_cast<int>((oh * 3600 + om * 60) * (z == '-' ? -1 : 1));
  } else {
    return bad("expected 'Z' or a UTC offset");
  }
  if (pos != text.size()) return bad("unexpected characters after the timestamp");
  Status s = CivilToNanos(c, out);
  if (!s.ok()) return Status::DataError(fmt::format("bad timestamp \"{}\": {}", text, s.message()));
  return s;
}

void AppendRfc3339(Nanos t, std::string* out) {
  using namespace std::chrono;
  int64_t secs = FloorDiv(t, kNanosPerSecond);
  int64_t frac = t - secs * kNanosPerSecond;
  int64_t days = FloorDiv(secs, 86400);
  int64_t sod = secs - days * 86400;
  year_month_day ymd{sys_days{std::chrono::days{days}}};
  fmt::format_to(std::back_inserter(*out), "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
                 static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                 static_cast<unsigned>(ymd.day()), sod / 3600, sod / 60 % 60, sod % 60);
  if (frac != 0) {
    if (frac % 1'000'000 == 0) {
      fmt::format_to(std::back_inserter(*out), ".{:03}", frac / 1'000'000);
    } else if (frac % 1'000 == 0) {
      fmt::format_to(std::back_inserter(*out), ".{:06}", frac / 1'000);
    } else {
      fmt::format_to(std::back_inserter(*out), ".{:09}", frac);
    }
  }
  out->push_back('Z');
}

std::string FormatRfc3339(Nanos t) {
  std::string s;
  AppendRfc3339(t, &s);
  return s;
}

}  // namespace logtide
