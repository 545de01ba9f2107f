// Small helpers the SQL renderers share: quoting, comments, and finding a field's column.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "plan/query_plan.h"

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

// A field path as the source table reads it: the column and the fields below it down to a field
// read whole, then the segments inside that field (read as JSON or as its text), if any.
struct FieldColumn {
  FieldPath columns;                   // the column, then record fields (and elements) below it
  FieldPath inside;                    // the rest of the path, inside the field read whole
  const SourceField* field = nullptr;  // the field `columns` ends at
};
// Returns where `path` is in `fields`. Records are read field by field. An array (kArray) is read
// whole when `elements` is false (as JSON: the elements are inside it); when it is true, an
// element is a column of its own, read whole (as its text). REQUIRES: the plan holds the path
// (BuildQueryPlan adds every path it uses).
FieldColumn FindColumn(const std::vector<SourceField>& fields, const FieldPath& path,
                       bool elements);

}  // namespace logtide
