// Small helpers the SQL renderers share: quoting, durations as SQL intervals, comments.
#pragma once

#include <string>
#include <string_view>

#include "time/timestamp.h"

namespace logtide {

// Returns `s` as an identifier in double quotes (DuckDB, standard SQL), a quote doubled.
std::string DoubleQuotedIdent(std::string_view s);
// Returns `s` as an identifier in backticks (Flink SQL), a backtick doubled.
std::string BacktickIdent(std::string_view s);
// Returns `s` as a string literal in single quotes, a quote doubled.
std::string SqlString(std::string_view s);
// Returns `text` as SQL line comments, each line starting with `indent` and "-- ", folded at
// about 100 columns.
std::string SqlComment(std::string_view text, std::string_view indent = "");

}  // namespace logtide
