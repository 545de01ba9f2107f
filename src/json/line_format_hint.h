// A hint for a line that is not JSON: whether it looks like a line of another format that
// logs come in (logfmt, CSV, TSV), so that a bad line's reason says what the input is.
#pragma once

#include <string_view>

namespace logtide {

// Returns what `line` looks like when it is not JSON, as the end of a bad line's reason
// ("the line looks like logfmt (key=value pairs) ..."), naming the --input-format that reads
// it, or "" when it looks like none of them.
// Only for lines that failed to parse as JSON: it looks at the shape, never validates.
//   logfmt: starts with key=value (a key of letters, digits, _ . -), as Go and Heroku apps log
//   TSV:    two or more fields separated by tabs
//   CSV:    two or more fields separated by commas (outside double quotes)
// A line that starts with { [ or " is taken for broken JSON: no hint.
std::string_view LineFormatHint(std::string_view line);

}  // namespace logtide
