// Fuzz target: the time parsers (time/timestamp.h, time/duration.h, time/time_format.h).
//
// Input: text. The whole of it is tried as an RFC 3339 timestamp, a duration and an epoch
// number; its lines as a run of timestamps through one minute cache; and, split at its first
// tab, as FORMAT <TAB> VALUE (the layout of testdata/tables/time_formats.txt). Checked:
//  - a timestamp accepted formats (FormatRfc3339) to text that parses back to the same instant,
//    in the canonical form; parsing through the cache gives what parsing without it gives;
//  - an RFC 3339 timestamp is read the same by the strptime-style patterns that spell it;
//  - a duration accepted formats (FormatDuration) to text that parses back to it, and its
//    rounded forms parse to within a tenth of their unit;
//  - an epoch number in plain decimal gives exactly its digits shifted by the unit's power of
//    ten, truncated toward zero, or an out-of-range error when that is outside 64 bits;
//  - any 64-bit instant in the documented range formats and parses back to itself.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz/check.h"
#include "time/duration.h"
#include "time/time_format.h"
#include "time/timestamp.h"

namespace logtide {
namespace {

// The first instant whose whole second is representable: the man page's lower bound, rounded
// up to the second (INT64_MIN lies inside 1677-09-21T00:12:43Z).
constexpr Nanos kFirstWholeSecond = -9'223'372'036'000'000'000;

void CheckTimestamp(std::string_view text) {
  Nanos t = 0;
  if (!ParseRfc3339(text, &t).ok()) return;
  const std::string canonical = FormatRfc3339(t);
  Nanos again = 0;
  FUZZ_CHECK(ParseRfc3339(canonical, &again).ok(), "%s -> %s does not parse",
             std::string(text).c_str(), canonical.c_str());
  FUZZ_CHECK(again == t, "%s -> %s -> %lld, not %lld", std::string(text).c_str(), canonical.c_str(),
             static_cast<long long>(again), static_cast<long long>(t));
  FUZZ_CHECK(FormatRfc3339(again) == canonical, "canonical form of %s is not stable",
             canonical.c_str());
  // Patterns that spell RFC 3339 read it the same (they also take more: 1-digit fields).
  if (text.size() > 10 && (text[10] == 'T' || text[10] == ' ')) {
    const char* const patterns[] = {"%Y-%m-%dT%H:%M:%S%z", "%FT%T%z"};
    const char* const spaced[] = {"%Y-%m-%d %H:%M:%S%z", "%F %T%z"};
    for (const char* p : text[10] == 'T' ? patterns : spaced) {
      TimeFormat f;
      FUZZ_CHECK(TimeFormat::Create(p, &f).ok(), "pattern %s refused", p);
      Nanos via_pattern = 0;
      const Status s = f.ParseString(text, &via_pattern);
      FUZZ_CHECK(s.ok(), "%s: RFC 3339 accepts it, %s refuses: %s", std::string(text).c_str(), p,
                 s.message().c_str());
      FUZZ_CHECK(via_pattern == t, "%s: %s reads %lld, RFC 3339 %lld", std::string(text).c_str(), p,
                 static_cast<long long>(via_pattern), static_cast<long long>(t));
    }
  }
}

// Lines as a run of timestamps: the cache must never change a result.
void CheckCache(std::string_view text) {
  Rfc3339Cache cache;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(pos, nl - pos);
    Nanos a = 0, b = 0;
    const bool ok_a = ParseRfc3339(line, &a).ok();
    const bool ok_b = ParseRfc3339(line, &b, &cache).ok();
    FUZZ_CHECK(ok_a == ok_b && (!ok_a || a == b), "%s: the minute cache changes the result",
               std::string(line).c_str());
    pos = nl + 1;
  }
}

void CheckDuration(std::string_view text) {
  Nanos d = 0;
  if (!ParseDuration(text, &d).ok()) return;
  FUZZ_CHECK(d >= 0, "%s: negative duration", std::string(text).c_str());
  const std::string shortest = FormatDuration(d);
  Nanos again = -1;
  FUZZ_CHECK(ParseDuration(shortest, &again).ok() && again == d, "%s -> %s does not parse back",
             std::string(text).c_str(), shortest.c_str());
  // The rounded forms (for messages): a tenth of their unit at most away, which is at most a
  // tenth of the duration. (Beyond a century the rounded-up form may pass the 64-bit range.)
  if (d > 0 && d < Nanos{36500} * 86400 * 1'000'000'000) {
    for (bool up : {false, true}) {
      const std::string rounded = FormatDurationRounded(d, up);
      Nanos r = -1;
      FUZZ_CHECK(ParseDuration(rounded, &r).ok(), "%lld rounded is %s, which does not parse",
                 static_cast<long long>(d), rounded.c_str());
      FUZZ_CHECK(!up || r >= d, "%lld rounded up is %s, less", static_cast<long long>(d),
                 rounded.c_str());
      FUZZ_CHECK(r - d <= d / 10 + 1 && d - r <= d / 10 + 1, "%lld rounded is %s, too far",
                 static_cast<long long>(d), rounded.c_str());
    }
  }
}

// The reference for plain decimals: the digits shifted left by `power` places, truncated toward
// zero; nullopt when the text is not [-]DIGITS[.DIGITS*]; a magnitude past 2^100 saturates.
std::optional<__int128> ShiftedDecimal(std::string_view text, int power) {
  size_t pos = 0;
  const bool neg = !text.empty() && text[0] == '-';
  if (neg) pos = 1;
  __int128 v = 0;
  const __int128 cap = static_cast<__int128>(1) << 100;
  auto push = [&](int digit) { v = v > cap ? v : v * 10 + digit; };
  size_t digits = 0;
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
    push(text[pos++] - '0');
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  int shifted = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (shifted < power) {
        push(text[pos] - '0');
        ++shifted;
      }
      ++pos;
    }
  }
  if (pos != text.size()) return std::nullopt;
  for (; shifted < power; ++shifted) push(0);
  return neg ? -v : v;
}

void CheckEpoch(std::string_view text) {
  const struct {
    int64_t unit;
    int power;
  } units[] = {{1'000'000'000, 9}, {1'000'000, 6}, {1'000, 3}, {1, 0}};
  const bool exponent = text.find_first_of("eE") != std::string_view::npos;
  for (const auto& u : units) {
    Nanos got = 0;
    const Status s = EpochTextToNanos(text, u.unit, &got);
    if (exponent) continue;  // through a double: checked for not crashing only
    const std::optional<__int128> want = ShiftedDecimal(text, u.power);
    if (!want) {
      FUZZ_CHECK(!s.ok(), "%s accepted as an epoch number", std::string(text).c_str());
      continue;
    }
    if (*want > INT64_MIN && *want <= INT64_MAX) {
      FUZZ_CHECK(s.ok() && got == static_cast<Nanos>(*want), "%s x%lld: got %lld (%s)",
                 std::string(text).c_str(), static_cast<long long>(u.unit),
                 static_cast<long long>(got), s.message().c_str());
    } else if (*want < INT64_MIN || *want > INT64_MAX) {
      FUZZ_CHECK(!s.ok(), "%s x%lld is outside 64 bits, yet accepted as %lld",
                 std::string(text).c_str(), static_cast<long long>(u.unit),
                 static_cast<long long>(got));
    }
  }
}

// FORMAT <TAB> VALUE: any format the parser builds, on any value, as a string and as a number.
void CheckFormat(std::string_view text) {
  const size_t tab = text.find('\t');
  if (tab == std::string_view::npos) return;
  const std::string_view spec = text.substr(0, tab), value = text.substr(tab + 1);
  TimeFormat f;
  if (!TimeFormat::Create(spec, &f).ok()) return;
  FUZZ_CHECK(f.spec() == spec, "the format keeps another spelling");
  Nanos t = 0;
  (void)f.ParseString(value, &t);
  (void)f.ParseNumber(value, &t);
  // rfc3339 and auto read strings as ParseRfc3339 does.
  if (f.kind() == TimeFormat::Kind::kRfc3339 || f.kind() == TimeFormat::Kind::kAuto) {
    Nanos a = 0, b = 0;
    const bool ok_a = f.ParseString(value, &a).ok(), ok_b = ParseRfc3339(value, &b).ok();
    FUZZ_CHECK(ok_a == ok_b && (!ok_a || a == b), "%s: format %s disagrees with RFC 3339",
               std::string(value).c_str(), std::string(spec).c_str());
  }
}

// Any instant in the documented range, from the input's first 8 bytes.
void CheckInstant(const uint8_t* data, size_t size) {
  if (size < 8) return;
  Nanos t;
  std::memcpy(&t, data, 8);
  if (t < kFirstWholeSecond) return;
  const std::string text = FormatRfc3339(t);
  Nanos again = 0;
  FUZZ_CHECK(ParseRfc3339(text, &again).ok() && again == t, "%lld -> %s does not parse back",
             static_cast<long long>(t), text.c_str());
}

}  // namespace
}  // namespace logtide

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace logtide;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckTimestamp(text);
  CheckCache(text);
  CheckDuration(text);
  CheckEpoch(text);
  CheckFormat(text);
  CheckInstant(data, size);
  return 0;
}
