#include "time/timestamp.h"

#include <fmt/format.h>

#include <chrono>
#include <cstring>

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
  if (c.month < 1 || c.month > 12)
    return Status::DataError(BadKind::kBadTime, fmt::format("month {} out of range", c.month));
  if (c.year < -9999 || c.year > 99999) return Status::DataError(BadKind::kBadTime, "year out of range");
  year_month_day ymd{year{static_cast<int>(c.year)}, month{static_cast<unsigned>(c.month)},
                     day{static_cast<unsigned>(c.day < 1 ? 0 : c.day)}};
  if (c.day < 1 || !ymd.ok()) {
    return Status::DataError(BadKind::kBadTime, 
        fmt::format("day {} out of range for {:04}-{:02}", c.day, c.year, c.month));
  }
  if (c.hour < 0 || c.hour > 23)
    return Status::DataError(BadKind::kBadTime, fmt::format("hour {} out of range", c.hour));
  if (c.minute < 0 || c.minute > 59)
    return Status::DataError(BadKind::kBadTime, fmt::format("minute {} out of range", c.minute));
  if (c.second < 0 || c.second > 59)
    return Status::DataError(BadKind::kBadTime, fmt::format("second {} out of range", c.second));
  if (c.nanos < 0 || c.nanos >= kNanosPerSecond) return Status::DataError(BadKind::kBadTime, "fraction out of range");
  int64_t days = sys_days{ymd}.time_since_epoch().count();
  int64_t secs = days * 86400 + c.hour * 3600 + c.minute * 60 + c.second - c.offset_seconds;
  int64_t ns;
  if (__builtin_mul_overflow(secs, kNanosPerSecond, &ns) ||
      __builtin_add_overflow(ns, c.nanos, &ns)) {
    return Status::DataError(BadKind::kTimeRange, "timestamp outside the supported range (1677-09-21 to 2262-04-11)");
  }
  *out = ns;
  return Status::Ok();
}

namespace {

// The common shapes, straight-line: YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|+hh:mm|-hh:mm). Returns false
// for anything else, including invalid values, so that the full parser can explain them.
inline bool TwoDigits(std::string_view s, size_t i, int* v) {
  unsigned a = static_cast<unsigned>(s[i] - '0'), b = static_cast<unsigned>(s[i + 1] - '0');
  *v = static_cast<int>(a * 10 + b);
  return a < 10 && b < 10;
}

bool FastRfc3339(std::string_view s, Nanos* out, Rfc3339Cache* cache) {
  const size_t n = s.size();
  if (n < 20 || s[16] != ':') return false;
  auto d2 = [&](size_t i, int* v) { return TwoDigits(s, i, v); };
  // Seconds from the epoch to the start of the minute "YYYY-MM-DDTHH:MM" (before the offset).
  int64_t minute;
  if (cache != nullptr && cache->valid && std::memcmp(cache->minute, s.data(), 16) == 0) {
    minute = cache->minute_seconds;
  } else {
    if (s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':') return false;
    int y1 = 0, y2 = 0, mo = 0, d = 0, h = 0, mi = 0;
    if (!d2(0, &y1) || !d2(2, &y2) || !d2(5, &mo) || !d2(8, &d) || !d2(11, &h) || !d2(14, &mi))
      return false;
    if (h > 23 || mi > 59 || mo < 1 || mo > 12 || d < 1) return false;
    // Days from civil (the proleptic Gregorian calendar).
    static constexpr int kDaysBefore[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
    static constexpr int kDaysIn[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int year = y1 * 100 + y2;
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (d > kDaysIn[mo - 1] || (mo == 2 && d == 29 && !leap)) return false;
    // Inside 1678..2261 nothing overflows; the edges go through the full parser.
    if (year < 1678 || year > 2261) return false;
    int64_t y = year - 1;
    int64_t days = y * 365 + y / 4 - y / 100 + y / 400 + kDaysBefore[mo - 1] + (mo > 2 && leap) +
                   d - 1 - 719162;
    minute = days * 86400 + h * 3600 + mi * 60;
    if (cache != nullptr) {
      std::memcpy(cache->minute, s.data(), 16);
      cache->minute_seconds = minute;
      cache->valid = true;
    }
  }
  int sec = 0;
  if (!d2(17, &sec) || sec > 59) return false;
  size_t pos = 19;
  int64_t frac = 0;
  if (s[pos] == '.') {
    static constexpr int64_t kScale[] = {0,          100000000, 10000000, 1000000, 100000,
                                         10000,      1000,      100,      10,      1};
    size_t start = ++pos;
    while (pos < n && pos - start < 9 && static_cast<unsigned>(s[pos] - '0') < 10)
      frac = frac * 10 + (s[pos++] - '0');
    if (pos == start || (pos < n && static_cast<unsigned>(s[pos] - '0') < 10)) return false;
    frac *= kScale[pos - start];
  }
  int offset = 0;
  if (pos + 1 == n && s[pos] == 'Z') {
  } else if (pos + 6 == n && (s[pos] == '+' || s[pos] == '-') && s[pos + 3] == ':') {
    int oh, om;
    if (!d2(pos + 1, &oh) || !d2(pos + 4, &om) || oh > 23 || om > 59) return false;
    offset = (oh * 3600 + om * 60) * (s[pos] == '-' ? -1 : 1);
  } else {
    return false;
  }
  *out = (minute + sec - offset) * kNanosPerSecond + frac;
  return true;
}

}  // namespace

Status ParseRfc3339(std::string_view text, Nanos* out, Rfc3339Cache* cache) {
  if (FastRfc3339(text, out, cache)) return Status::Ok();
  return ParseRfc3339(text, out);
}

namespace {

// Reads "YYYY-MM-DD('T'|'t'|' ')hh:mm:ss[.fraction]" from the start of text into c, leaving *pos
// after it. Returns nullptr, or what was expected where it failed.
const char* ReadDateTime(std::string_view text, size_t* pos_out, CivilTime* out) {
  CivilTime& c = *out;
  size_t pos = 0;
  int64_t v;
  if (!ReadDigits(text, &pos, 4, &c.year)) return "expected a 4-digit year";
  if (pos >= text.size() || text[pos++] != '-') return "expected '-' after the year";
  if (!ReadDigits(text, &pos, 2, &v)) return "expected a 2-digit month";
  c.month = static_cast<int>(v);
  if (pos >= text.size() || text[pos++] != '-') return "expected '-' after the month";
  if (!ReadDigits(text, &pos, 2, &v)) return "expected a 2-digit day";
  c.day = static_cast<int>(v);
  if (pos >= text.size() || (text[pos] != 'T' && text[pos] != 't' && text[pos] != ' ')) {
    return "expected 'T' between date and time";
  }
  ++pos;
  if (!ReadDigits(text, &pos, 2, &v)) return "expected a 2-digit hour";
  c.hour = static_cast<int>(v);
  if (pos >= text.size() || text[pos++] != ':') return "expected ':' after the hour";
  if (!ReadDigits(text, &pos, 2, &v)) return "expected 2-digit minutes";
  c.minute = static_cast<int>(v);
  if (pos >= text.size() || text[pos++] != ':') return "expected ':' after the minutes";
  if (!ReadDigits(text, &pos, 2, &v)) return "expected 2-digit seconds";
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
    if (digits == 0) return "expected digits after '.'";
    for (int i = digits; i < 9; ++i) frac *= 10;
    c.nanos = frac;
  }
  *pos_out = pos;
  return nullptr;
}

}  // namespace

Status ParseRfc3339(std::string_view text, Nanos* out) {
  if (FastRfc3339(text, out, nullptr)) return Status::Ok();
  CivilTime c;
  size_t pos = 0;
  auto bad = [&](const char* what) {
    return Status::DataError(BadKind::kBadTime,
                             fmt::format("not an RFC 3339 timestamp ({}): \"{}\"", what, text));
  };
  if (const char* what = ReadDateTime(text, &pos, &c)) return bad(what);
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
  if (!s.ok()) return Status::DataError(s.bad_kind(), fmt::format("bad timestamp \"{}\": {}", text, s.message()));
  return s;
}

Status ParseLocalDateTime(std::string_view text, CivilTime* out) {
  size_t pos = 0;
  auto bad = [&](const char* what) {
    return Status::DataError(BadKind::kBadTime,
                             fmt::format("not a local date and time ({}): \"{}\"", what, text));
  };
  if (const char* what = ReadDateTime(text, &pos, out)) return bad(what);
  if (pos != text.size()) return bad("unexpected characters after the time");
  out->offset_seconds = 0;
  Nanos check;
  Status s = CivilToNanos(*out, &check);  // the fields' ranges (Feb 30, hour 24)
  if (!s.ok())
    return Status::DataError(s.bad_kind(),
                             fmt::format("bad timestamp \"{}\": {}", text, s.message()));
  return s;
}

void AppendRfc3339(Nanos t, std::string* out) {
  using namespace std::chrono;
  // The remainders without multiplying back: FloorDiv(INT64_MIN, 10^9) * 10^9 overflows.
  int64_t secs = FloorDiv(t, kNanosPerSecond);
  int64_t frac = FloorMod(t, kNanosPerSecond);
  int64_t days = FloorDiv(secs, 86400);
  int64_t sod = FloorMod(secs, 86400);
  year_month_day ymd{sys_days{std::chrono::days{days}}};
  // Written digit by digit: this runs twice per output record.
  char buf[40];
  auto put = [](char* p, int64_t v, int width) {
    for (int i = width - 1; i >= 0; --i, v /= 10) p[i] = static_cast<char>('0' + v % 10);
  };
  put(buf, static_cast<int>(ymd.year()), 4);
  buf[4] = '-';
  put(buf + 5, static_cast<unsigned>(ymd.month()), 2);
  buf[7] = '-';
  put(buf + 8, static_cast<unsigned>(ymd.day()), 2);
  buf[10] = 'T';
  put(buf + 11, sod / 3600, 2);
  buf[13] = ':';
  put(buf + 14, sod / 60 % 60, 2);
  buf[16] = ':';
  put(buf + 17, sod % 60, 2);
  size_t n = 19;
  if (frac != 0) {
    buf[n++] = '.';
    if (frac % 1'000'000 == 0) {
      put(buf + n, frac / 1'000'000, 3);
      n += 3;
    } else if (frac % 1'000 == 0) {
      put(buf + n, frac / 1'000, 6);
      n += 6;
    } else {
      put(buf + n, frac, 9);
      n += 9;
    }
  }
  buf[n++] = 'Z';
  out->append(buf, n);
}

std::string FormatRfc3339(Nanos t) {
  std::string s;
  AppendRfc3339(t, &s);
  return s;
}

}  // namespace logtide
