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
// Returns `text` with every character that could end a line comment, or hide text on a
// terminal, written as a visible escape: the bytes 0x00-0x1f and 0x7f (\n, \r, \t, else
// \xNN), the C1 controls U+0080-U+009F (NEL, U+0085, among them), the line and paragraph
// separators U+2028 and U+2029, and the bidirectional formatting characters (U+061C, U+200E,
// U+200F, U+202A-U+202E, U+2066-U+2069) as \uNNNN, and a byte that is not part of valid
// UTF-8 as \xNN. Backslashes are kept as they are. The one rule for user text in a comment
// (and in --explain's words): what comes out can neither end the comment nor hide what
// follows it.
std::string VisibleText(std::string_view text);
// Returns `text` as SQL line comments, each line starting with `indent` and "-- ", folded at
// about 100 columns. Each line of `text` (up to a '\n') goes through VisibleText, so nothing
// in it can end its comment; a '\n' starts the next comment line. Pass user text through
// VisibleText first, so a newline in it is shown as \n instead of starting a line.
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
