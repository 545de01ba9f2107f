// Result records as aligned text tables (--format table), for terminals and reports, as
// `mlr --opprint` prints them. A table is a header row of the record's field names (the same
// names and order as NDJSON and CSV: window_start, window_end[, window_label], the keys, the
// aggregates, and with revisions revision, phase, final), then one row per record, then an
// empty line:
//
//   window_start          window_end            service  count
//   2024-05-01T10:00:00Z  2024-05-01T10:01:00Z  api          4
//
// Columns are separated by two spaces and padded to their widest cell in the table; a column
// whose cells that are not null are all numbers (and one at least) is aligned right, any
// other left; no line ends in a space. Cells:
//   null (and a non-finite double)  null
//   numbers, true, false            as in NDJSON
//   window bounds, phase            as in NDJSON, without the quotes
//   strings                         as they are (TableText), or as a JSON string literal
//                                   when they would be mistaken for something else or hold a
//                                   control character
//   objects and arrays              their JSON text (TableText)
// Widths are display columns (DisplayWidth). No escape sequence (colour) is ever written.
//
// When tables end: a table needs every row to know its widths. With `per_firing` (--state,
// --follow), each firing's records (the windows that closed together) are one table, written
// when the firing is, so that output stays live and a checkpoint's committed length always
// ends between tables (a resumed job writes the same bytes). Otherwise the run's records are
// one table, written at Finish. Either way a table ends after kMaxRows rows or once its
// cells hold kMaxBytes bytes, and the next rows start another (with its header): the buffered
// rows are bounded. Where tables end depends on the records only, never on the clock or on
// buffer sizes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "output/output_file.h"
#include "output/record_writer.h"
#include "time/time_zone.h"
#include "time/timestamp.h"

namespace logtide {

// How a string reads in a table cell, appended to *out. Bare (as it is) unless the bare text
// would read as another cell or hide what it holds: empty; null, true, false or a JSON
// number; starting with '"'; a space at its start or end or next to another space; or holding
// a control character (C0, DEL, C1), a line or paragraph separator (U+2028, U+2029), a
// bidirectional override or isolate (U+202A-U+202E, U+2066-U+2069) or a byte that is not
// UTF-8. Then it is a JSON string literal: \" \\ \b \f \n \r \t, \u00XX for the other control
// characters, \uXXXX for the separators and overrides, and \xHH (not JSON) for a byte that
// is not UTF-8.
void AppendTableString(std::string_view s, std::string* out);
// Appends an object's or array's JSON text: a C0 control byte (whitespace between its
// tokens) as one space, DEL and C1 characters and the characters AppendTableString escapes
// as \u escapes (they are inside its strings), anything else as it is.
void AppendTableRaw(std::string_view s, std::string* out);
// Returns the columns `s` (UTF-8) takes on a terminal, as wcwidth(3) would count them for
// the common cases: 2 for East Asian wide and fullwidth characters and the emoji blocks
// (U+1100-U+115F, U+2E80-U+A4CF, U+AC00-U+D7A3, U+F900-U+FAFF, U+FE30-U+FE4F,
// U+FF00-U+FF60, U+FFE0-U+FFE6, U+1F300-U+1F64F, U+1F900-U+1F9FF, U+20000-U+3FFFD), 0 for
// combining marks (U+0300-U+036F, U+1AB0-U+1AFF, U+1DC0-U+1DFF, U+20D0-U+20FF,
// U+FE20-U+FE2F), zero-width characters (U+200B-U+200F, U+2060-U+2064, U+FEFF) and
// variation selectors (U+FE00-U+FE0F), 1 for any other character and for a byte that is not
// UTF-8.
size_t DisplayWidth(std::string_view s);

class TableWriter final : public RecordSink {
 public:
  static constexpr size_t kMaxRows = 1000;
  static constexpr size_t kMaxBytes = size_t{1} << 20;

  // With `with_revision`, every record ends with the revision, phase and final fields.
  TableWriter(std::vector<std::string> key_names, std::vector<std::string> agg_names,
              bool with_revision, bool per_firing, OutputFile* out);

  void BeginRecord(Nanos start, Nanos end) override;
  void Key(const ValueRef& v) override { Value(v); }
  void EndRecord(const RecordRevision& revision) override;
  // With per_firing, writes the table of the records since the last one.
  void EndFiring() override;
  // Writes the rows not written yet as a table (nothing when there are none).
  void Finish();
  // --local-times: window bounds in this zone's local time with its offset (RecordWriter's).
  void set_local_zone(const TimeZone* zone) { local_zone_ = zone; }
  // --window-label: a window_label column after window_end (RecordWriter's). `label` must
  // outlive the writer. REQUIRES: before the first record.
  void set_window_label(const WindowLabel* label);

  void Null() override;
  void Int(__int128 v) override;
  void Double(double v) override;
  void Value(const ValueRef& v) override;

 private:
  enum class Kind : uint8_t { kNull, kNumber, kText };
  void AppendBound(Nanos t);
  const TimeZone* local_zone_ = nullptr;  // null: bounds in UTC
  const WindowLabel* label_ = nullptr;    // null: no window_label
  struct Cell {
    size_t end;    // in text_, just past the cell's bytes
    size_t width;  // display columns
    Kind kind;
  };
  // Ends the cell whose bytes were appended to text_ since the last one.
  void EndCell(Kind kind);
  void WriteTable();

  std::vector<std::string> header_;  // the field names, as cells
  bool with_revision_;
  bool per_firing_;
  OutputFile* out_;
  // The buffered rows: header_.size() cells each, their bytes one after another in text_.
  std::string text_;
  std::vector<Cell> cells_;
  size_t rows_ = 0;
  // Per column while writing: its width and whether it is aligned right.
  std::vector<size_t> widths_;
  std::vector<bool> right_;
};

}  // namespace logtide
