// Durations written as a sequence of <integer><unit> terms: "250ms", "30s", "1h30m", "1d".
// Units: ns, us (or µs), ms, s, m, h, d. A bare "0" means zero.
#pragma once

#include <string>
#include <string_view>

#include "time/timestamp.h"
#include "util/status.h"

namespace logtide {

// Parses `text` into nanoseconds. Fails on an empty string, a missing or unknown unit, a
// negative sign, or a total beyond the int64 nanosecond range (about 292 years).
Status ParseDuration(std::string_view text, Nanos* out);

// Returns the shortest form of `d` in the grammar above ("1h30m", "250ms", "0s").
std::string FormatDuration(Nanos d);

// Returns `d` in its largest unit that is not more than it, to a tenth of that unit, rounded up
// (`up`) or to the nearest ("2.8s", "734.3ms", "1.2h", "3d"), in the grammar above. For
// messages that suggest a value; 0 is "0s".
std::string FormatDurationRounded(Nanos d, bool up);

}  // namespace logtide
