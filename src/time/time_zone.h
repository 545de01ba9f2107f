// Time zones: an IANA zone from the system's zone database (/usr/share/zoneinfo), read through
// absl::TimeZone, and the two rules logtide applies where a local wall-clock time is skipped
// or repeated by a daylight-saving change. No zone arithmetic is done here by hand: civil
// times and offsets all come from absl.
#pragma once

#include <absl/time/civil_time.h>
#include <absl/time/time.h>

#include <string>
#include <string_view>

#include "time/timestamp.h"
#include "util/status.h"

namespace logtide {

class TimeZone {
 public:
  // UTC.
  TimeZone() : zone_(absl::UTCTimeZone()), name_("UTC") {}

  // Loads the zone `name`: an IANA name (Europe/Berlin, UTC) or `local`, the system's zone
  // (the TZ environment variable, else /etc/localtime). Fails with the name and a hint when
  // the zone database has no such zone.
  static Status Load(std::string_view name, TimeZone* out);

  // The zone's name: the IANA name given, or for `local` the name it resolved to.
  const std::string& name() const { return name_; }
  bool is_utc() const { return name_ == "UTC"; }

  // Returns the local wall-clock time at instant t.
  absl::CivilSecond ToCivil(Nanos t) const;
  // Returns the UTC offset at instant t, in seconds.
  int OffsetSeconds(Nanos t) const;

  // Returns the first instant at which the local clock shows `c` or later: the instant of `c`
  // where it is unique, its earlier instant where a fall-back change repeats it, and the
  // instant of the change where a spring-forward change skips it. Window boundaries are these
  // instants. Saturates at the ends of the Nanos range.
  Nanos FirstInstant(const absl::CivilSecond& c) const;

  // Reads a local wall-clock time as an instant: where it is repeated (fall back), the earlier
  // of its two instants; where it is skipped (spring forward), fails saying so.
  Status LocalToInstant(const absl::CivilSecond& c, int64_t subsecond_nanos, Nanos* out) const;

  // Appends instant t as the zone's local time with its UTC offset, RFC 3339
  // ("2024-03-31T00:00:00+01:00"; "+00:00" in UTC), the fraction of a second written as
  // AppendRfc3339 writes it. The civil time and the offset come from absl::FormatTime.
  void AppendLocalRfc3339(Nanos t, std::string* out) const;

  const absl::TimeZone& zone() const { return zone_; }

 private:
  absl::TimeZone zone_;
  std::string name_;
};

// Returns the version of the system's zone database ("2025b"), from the first line of
// tzdata.zi in the directory zones are loaded from (TZDIR when it is set, as absl reads it,
// else /usr/share/zoneinfo), or "" when that file is missing or does not say.
std::string ZoneDatabaseVersion();

}  // namespace logtide
