#include "time/time_zone.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <limits>

namespace logtide {
namespace {

Nanos ToNanosSaturated(absl::Time t) {
  static const absl::Time kLo = absl::FromUnixNanos(std::numeric_limits<int64_t>::min());
  static const absl::Time kHi = absl::FromUnixNanos(std::numeric_limits<int64_t>::max());
  if (t <= kLo) return std::numeric_limits<int64_t>::min();
  if (t >= kHi) return std::numeric_limits<int64_t>::max();
  return absl::ToUnixNanos(t);
}

}  // namespace

Status TimeZone::Load(std::string_view name, TimeZone* out) {
  TimeZone z;
  if (name == "local") {
    z.zone_ = absl::LocalTimeZone();
    z.name_ = z.zone_.name();
    // LocalTimeZone falls back to UTC, silently, when TZ names no zone: say so instead.
    const char* tz = std::getenv("TZ");
    if (tz != nullptr && *tz != '\0') {
      std::string_view want = *tz == ':' ? tz + 1 : tz;
      absl::TimeZone check;
      if (!absl::LoadTimeZone(std::string(want), &check))
        return Status::InvalidArgument(fmt::format(
            "--tz local: the TZ environment variable names \"{}\", which the zone database "
            "(/usr/share/zoneinfo) does not have",
            want));
    }
  } else {
    if (name.empty() || !absl::LoadTimeZone(std::string(name), &z.zone_))
      return Status::InvalidArgument(fmt::format(
          "--tz \"{}\": no such time zone in the zone database (/usr/share/zoneinfo); give an "
          "IANA name such as Europe/Berlin, America/New_York or UTC, or local",
          name));
    z.name_ = std::string(name);
  }
  *out = std::move(z);
  return Status::Ok();
}

absl::CivilSecond TimeZone::ToCivil(Nanos t) const {
  return absl::ToCivilSecond(absl::FromUnixNanos(t), zone_);
}

int TimeZone::OffsetSeconds(Nanos t) const { return zone_.At(absl::FromUnixNanos(t)).offset; }

Nanos TimeZone::FirstInstant(const absl::CivilSecond& c) const {
  const absl::TimeZone::TimeInfo info = zone_.At(c);
  return ToNanosSaturated(info.kind == absl::TimeZone::TimeInfo::SKIPPED ? info.trans : info.pre);
}

Status TimeZone::LocalToInstant(const absl::CivilSecond& c, int64_t subsecond_nanos,
                                Nanos* out) const {
  const absl::TimeZone::TimeInfo info = zone_.At(c);
  if (info.kind == absl::TimeZone::TimeInfo::SKIPPED) {
    return Status::InvalidArgument(fmt::format(
        "local time {:04d}-{:02d}-{:02d} {:02d}:{:02d}:{:02d} does not exist in {} (skipped "
        "by a daylight-saving change)",
        c.year(), c.month(), c.day(), c.hour(), c.minute(), c.second(), name_));
  }
  const absl::Time t = info.pre + absl::Nanoseconds(subsecond_nanos);
  const Nanos n = ToNanosSaturated(t);
  if (n == std::numeric_limits<int64_t>::min() || n == std::numeric_limits<int64_t>::max())
    return Status::InvalidArgument("local time outside the range 1677-09-21 to 2262-04-11");
  *out = n;
  return Status::Ok();
}

std::string ZoneDatabaseVersion() {
  // The directory absl reads zones from: TZDIR when set, as for every tzcode reader.
  const char* dir = std::getenv("TZDIR");
  const std::string path =
      std::string(dir != nullptr && *dir != '\0' ? dir : "/usr/share/zoneinfo") + "/tzdata.zi";
  FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return "";
  char line[128] = {};
  const bool got = std::fgets(line, sizeof line, f) != nullptr;
  std::fclose(f);
  if (!got) return "";
  std::string_view s(line);
  constexpr std::string_view kPrefix = "# version ";
  if (s.substr(0, kPrefix.size()) != kPrefix) return "";
  s.remove_prefix(kPrefix.size());
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' '))
    s.remove_suffix(1);
  return std::string(s);
}

void TimeZone::AppendLocalRfc3339(Nanos t, std::string* out) const {
  const absl::Time at = absl::FromUnixNanos(t);
  out->append(absl::FormatTime("%Y-%m-%dT%H:%M:%S", at, zone_));
  // The fraction does not depend on the zone (offsets are whole seconds): AppendRfc3339's,
  // between the seconds and its Z.
  char utc[48];
  const size_t n = FormatRfc3339(t).copy(utc, sizeof utc);
  if (n > 20) out->append(utc + 19, n - 20);
  out->append(absl::FormatTime("%Ez", at, zone_));
}

}  // namespace logtide
