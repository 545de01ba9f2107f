// Timestamps: signed 64-bit nanoseconds since 1970-01-01T00:00:00Z (UTC, no leap seconds),
// which covers 1677-09-21 to 2262-04-11. Conversions from civil time and RFC 3339 text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "util/status.h"

namespace logtide {

using Nanos = int64_t;

inline constexpr Nanos kNanosPerSecond = 1'000'000'000;

// A broken-down civil time. `offset_seconds` is the UTC offset it was written in (+01:00 = 3600).
struct CivilTime {
  int64_t year = 1970;
  int month = 1;      // 1..12
  int day = 1;        // 1..31
  int hour = 0;       // 0..23
  int minute = 0;     // 0..59
  int second = 0;     // 0..59
  int64_t nanos = 0;  // 0..999'999'999
  int offset_seconds = 0;
};

// Converts `c` to a timestamp. Fails when a field is out of its range (Feb 30, hour 24, ...)
// or the instant is outside the representable range; the message names the problem.
Status CivilToNanos(const CivilTime& c, Nanos* out);

// Parses an RFC 3339 timestamp: YYYY-MM-DD('T'|'t'|' ')hh:mm:ss[.fraction]('Z'|'z'|+hh:mm|-hh:mm).
// Fraction digits beyond nanoseconds are truncated. Leap seconds (:60) are refused.
Status ParseRfc3339(std::string_view text, Nanos* out);

// Parses a local date and time with no UTC offset: YYYY-MM-DD('T'|'t'|' ')hh:mm:ss[.fraction],
// into c (offset_seconds 0), checking the fields' ranges. The zone it is in is the caller's.
Status ParseLocalDateTime(std::string_view text, CivilTime* out);

// Remembers the last minute parsed, so that a run of timestamps in one minute skips the calendar.
struct Rfc3339Cache {
  char minute[16] = {};  // "YYYY-MM-DDTHH:MM" of the last timestamp parsed
  int64_t minute_seconds = 0;  // its start, in seconds from the epoch, before the UTC offset
  bool valid = false;
};
// As above, using and updating `cache`.
Status ParseRfc3339(std::string_view text, Nanos* out, Rfc3339Cache* cache);

// Appends `t` as RFC 3339 in UTC with a 'Z' suffix; the fraction is omitted when zero and
// otherwise written with 3, 6 or 9 digits, the fewest that are exact.
void AppendRfc3339(Nanos t, std::string* out);
std::string FormatRfc3339(Nanos t);

}  // namespace logtide
