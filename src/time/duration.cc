#include "time/duration.h"
#include "util/quote.h"

#include <fmt/format.h>

#include <iterator>

namespace logtide {
namespace {

struct Unit {
  std::string_view name;
  Nanos nanos;
};

// Longest names first so that "ms" is not read as "m" followed by "s".
constexpr Unit kUnits[] = {
    {"ns", 1},
    {"us", 1'000},
    {"\xC2\xB5s", 1'000},
    {"ms", 1'000'000},
    {"s", kNanosPerSecond},
    {"m", 60 * kNanosPerSecond},
    {"h", 3600 * kNanosPerSecond},
    {"d", 86400 * kNanosPerSecond},
};

}  // namespace

Status ParseDuration(std::string_view text, Nanos* out) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument(
        fmt::format("bad duration {}: {} (examples: 250ms, 1.5s, 5m, 1h30m, 1d)",
                    QuoteForMessage(text, /*backslash_quotes=*/true), why));
  };
  if (text.empty()) return bad("empty");
  if (text == "0") {
    *out = 0;
    return Status::Ok();
  }
  Nanos total = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] < '0' || text[pos] > '9') {
      return bad(text[pos] == '-' ? "negative durations are not allowed" : "expected a number");
    }
    int64_t n = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, text[pos] - '0', &n)) {
        return bad("too large");
      }
      ++pos;
    }
    // A fraction (1.5s, 0.25ms): digits after a '.', as many as a nanosecond allows.
    int64_t frac = 0, scale = 1;
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      if (pos == text.size() || text[pos] < '0' || text[pos] > '9') {
        return bad("expected digits after the '.'");
      }
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        if (scale == 1'000'000'000) return bad("more than 9 digits after the '.'");
        frac = frac * 10 + (text[pos] - '0');
        scale *= 10;
        ++pos;
      }
    }
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
      if (text.substr(pos, u.name.size()) == u.name) {
        unit = &u;
        break;
      }
    }
    if (unit == nullptr) {
      return bad(pos == text.size() ? "missing unit after the number" : "unknown unit");
    }
    pos += unit->name.size();
    Nanos term;
    if (__builtin_mul_overflow(n, unit->nanos, &term) ||
        __builtin_add_overflow(total, term, &total)) {
      return bad("too large");
    }
    if (frac != 0) {
      const __int128 f = static_cast<__int128>(frac) * unit->nanos;
      if (f % scale != 0) return bad("finer than a nanosecond");
      if (__builtin_add_overflow(total, static_cast<Nanos>(f / scale), &total)) {
        return bad("too large");
      }
    }
  }
  *out = total;
  return Status::Ok();
}

std::string FormatDuration(Nanos d) {
  if (d == 0) return "0s";
  std::string s;
  // Sub-second durations that are not whole seconds are written in the largest exact unit.
  if (d % kNanosPerSecond != 0) {
    if (d % 1'000'000 == 0) return fmt::format("{}ms", d / 1'000'000);
    if (d % 1'000 == 0) return fmt::format("{}us", d / 1'000);
    return fmt::format("{}ns", d);
  }
  int64_t secs = d / kNanosPerSecond;
  const std::pair<int64_t, char> parts[] = {{86400, 'd'}, {3600, 'h'}, {60, 'm'}, {1, 's'}};
  for (auto [size, name] : parts) {
    if (secs >= size) {
      fmt::format_to(std::back_inserter(s), "{}{}", secs / size, name);
      secs %= size;
    }
  }
  return s;
}

std::string FormatDurationRounded(Nanos d, bool up) {
  if (d <= 0) return "0s";
  const std::pair<int64_t, const char*> units[] = {
      {86400 * kNanosPerSecond, "d"}, {3600 * kNanosPerSecond, "h"}, {60 * kNanosPerSecond, "m"},
      {kNanosPerSecond, "s"},         {1'000'000, "ms"},             {1'000, "us"},
      {1, "ns"}};
  for (size_t u = 0; u < std::size(units); ++u) {
    const auto [size, name] = units[u];
    if (d < size && size != 1) continue;
    // Tenths of the unit, in integers (a tenth of a nanosecond is not one).
    const int64_t tenth = size >= 10 ? size / 10 : 1;
    int64_t tenths = d / tenth;
    if (up ? d % tenth != 0 : 2 * (d % tenth) >= tenth) ++tenths;
    // Rounded up to the next unit (59.99s to 60s): written in that unit (1m).
    if (u > 0 && tenths * tenth >= units[u - 1].first) return FormatDurationRounded(tenths * tenth, up);
    if (size < 10) return fmt::format("{}{}", tenths, name);
    const int64_t per = size / tenth;  // 10
    return tenths % per == 0 ? fmt::format("{}{}", tenths / per, name)
                             : fmt::format("{}.{}{}", tenths / per, tenths % per, name);
  }
  return "0s";
}

}  // namespace logtide
