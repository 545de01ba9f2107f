// How event-time values are turned into timestamps: RFC 3339 strings, epoch numbers in a
// given unit or guessed from their magnitude, or a strptime-style pattern.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "time/time_zone.h"
#include "time/timestamp.h"
#include "util/status.h"

namespace logtide {

class TimeFormat {
 public:
  enum class Kind { kAuto, kRfc3339, kEpochS, kEpochMs, kEpochUs, kEpochNs, kPattern };

  // Builds a format from its command-line spelling: auto, rfc3339, epoch_s, epoch_ms,
  // epoch_us, epoch_ns, or a pattern containing '%'. Fails on an unknown name, an unknown
  // directive, or a pattern that does not determine a date.
  static Status Create(std::string_view spec, TimeFormat* out);

  // Converts a JSON string value (already unescaped).
  Status ParseString(std::string_view text, Nanos* out) const;
  // Converts a JSON number, given as its source text (for exact fractional epochs).
  Status ParseNumber(std::string_view number_text, Nanos* out) const;

  // --tz: a time string with no UTC offset (auto and rfc3339: "2026-03-29 02:30:00"; a pattern
  // with no %z, %Z or %s) is a local time in `zone` (TimeZone::LocalToInstant: the earlier
  // instant of a repeated time; a skipped one is a bad time). Without it such a string is
  // refused by auto and rfc3339, and a pattern's time is UTC.
  void set_zone(const TimeZone& zone) {
    zone_ = zone;
    zoned_ = true;
  }

  Kind kind() const { return kind_; }
  const std::string& spec() const { return spec_; }

  // One parsed pattern element: a literal byte, a run of white space, or a directive.
  struct Item {
    char directive;  // 0 for a literal, ' ' for white space
    char literal;    // the literal byte; for %S, 1 when it takes no fraction
  };

 private:
  Status ParsePattern(std::string_view text, Nanos* out) const;
  // Converts a civil time read with no offset to an instant in zone_. REQUIRES: zoned_.
  Status LocalToInstant(const CivilTime& c, std::string_view text, Nanos* out) const;

  Kind kind_ = Kind::kAuto;
  // A parse-speed cache only: results never depend on it.
  mutable Rfc3339Cache rfc3339_cache_;
  std::string spec_ = "auto";
  std::vector<Item> items_;
  bool zoned_ = false;
  TimeZone zone_;
};

// Converts an epoch number's source text (e.g. "-1700000000.25") to nanoseconds, given the
// number of nanoseconds per unit. Exact for plain decimals; exponent forms go through double.
Status EpochTextToNanos(std::string_view text, int64_t nanos_per_unit, Nanos* out);

// Returns the unit `auto` picks for an epoch number whose integer part has absolute value
// `magnitude`: seconds below 1e11, milliseconds below 1e14, microseconds below 1e17,
// nanoseconds above.
int64_t AutoEpochUnit(double magnitude);

}  // namespace logtide
