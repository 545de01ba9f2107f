// CSV (RFC 4180) and TSV lines with a header, converted into the JSON objects they stand for:
// the header's names are the keys, a row's fields their values.
//
// CSV grammar (bytes; SEP is ','):
//   row     = field *( SEP field )
//   field   = quoted / bare
//   quoted  = '"' *( any byte but '"' / '""' ) '"'     ; then SEP or the end of the line
//   bare    = *( any byte but SEP )                    ; a '"' inside it is a '"'
// '""' in a quoted field is one '"'. A quoted field is never read across lines: one whose
// closing quote is not on its line is a bad line. Spaces are part of the fields.
// TSV (SEP is a tab, as IANA's text/tab-separated-values): no quoting; every byte but the tab
// is the field's, '"' included.
//
// Typing: a bare field that is a JSON number (IsJsonNumber) is that number, an empty bare field
// null (no value, as an absent field), any other bare field a string; a quoted field is always a
// string ("" is the empty string, "12" the string "12"). In TSV every non-empty field is bare.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lineformat/json_builder.h"
#include "lineformat/key_set.h"
#include "util/status.h"

namespace logtide {

// The header of a CSV or TSV file: its first line, whose fields name the keys of the objects its
// rows become.
class CsvHeader {
 public:
  // Reads `line` (the file's first line, without its '\n'; a UTF-8 byte order mark at its start
  // is skipped) as the header of a file of separator `sep` (',' quoted as above, '\t' not).
  // A header that is not a well-formed row is kept as the reason every row of its file is bad.
  CsvHeader(std::string_view line, char sep);
  // A file whose header could not be read (too long, or not there): `reason` says why.
  static CsvHeader Unreadable(std::string reason, char sep);

  // The reason its rows are bad lines, when the header is not usable; empty otherwise.
  const std::string& error() const { return error_; }
  // A number no other header of the process has (a header freed and another made at its
  // address have different ids).
  uint64_t id() const { return id_; }
  size_t size() const { return keys_.size(); }
  char sep() const { return sep_; }

  // Which of its columns hold a key of `keys`: 1 for each, in column order.
  std::vector<uint8_t> Columns(const KeySet& keys) const;

  // Writes the JSON object of row `line` into *out, with the fields of the columns `columns`
  // marks (Columns; nullptr: all). Errors: DataError (BadKind::kNotJson) for a row that is not
  // well-formed, has another number of fields than the header, or whose header is not usable.
  Status RowToJson(std::string_view line, const std::vector<uint8_t>* columns,
                   JsonBuilder* out) const;

 private:
  CsvHeader() = default;
  static uint64_t NextId();

  uint64_t id_ = NextId();
  char sep_ = ',';
  std::string error_;
  std::vector<std::string> plain_;               // every key as it is
  std::string names_;                            // every key as JSON text with its ':', "ts":
  std::vector<std::pair<size_t, size_t>> keys_;  // each key's (offset, size) in names_
};

// Splits a CSV or TSV `line` into its fields, calling on_field(text, quoted) for each (text:
// the field's bytes, a quoted field's '""' still doubled). Returns the field count, or an
// error as RowToJson's.
template <typename F>
Status SplitCsvRow(std::string_view line, char sep, size_t* count, F&& on_field);

}  // namespace logtide

#include "lineformat/csv_inl.h"
