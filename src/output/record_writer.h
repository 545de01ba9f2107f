// Result records in NDJSON or CSV (tables: output/table_writer.h). A record is: window_start,
// window_end, with --window-label window_label, the key fields in
// --by order, the aggregates in --agg order, and with revisions (update mode or --early) the
// revision, the phase and whether it is the window's last record.
//   NDJSON: {"window_start":"...","window_end":"...","host":"a","count":3}
//   with revisions: {...,"count":3,"revision":1,"phase":"early","final":false}
//   CSV:    a header row with the same names, then one row per record; null is an empty field.
#pragma once

#include <string>
#include <vector>

#include "agg/accumulators.h"
#include "output/output_file.h"
#include "output/output_format.h"
#include "time/time_zone.h"
#include "time/timestamp.h"
#include "window/emit_mode.h"
#include "window/window_label.h"

namespace logtide {

// How final a record is: its revision (-1 when records have none: final mode without
// --early), its phase, and whether it is the last record of its window and key.
struct RecordRevision {
  int64_t number = -1;
  RecordPhase phase = RecordPhase::kOnTime;
  bool final = false;
  // --having under --changes retract|debezium: the record does not match, so it is not
  // written; its window and key's earlier record is taken back (output/change_writer.h).
  bool withheld = false;
};

// Where records go, one at a time: BeginRecord, one Key per key field, one ValueSink call per
// aggregate, EndRecord (with the revision: number -1 when records have none); EndFiring after
// the last record of a firing (FiringWriter::Write).
class RecordSink : public ValueSink {
 public:
  virtual void BeginRecord(Nanos start, Nanos end) = 0;
  virtual void Key(const ValueRef& v) = 0;
  virtual void EndRecord(const RecordRevision& revision) = 0;
  virtual void EndFiring() {}
};

class RecordWriter final : public RecordSink {
 public:
  // With `with_revision`, every record ends with the revision, phase and final fields.
  RecordWriter(OutputFormat format, std::vector<std::string> key_names,
               std::vector<std::string> agg_names, bool with_revision, OutputFile* out);

  // --local-times: window bounds in `zone`'s local time with its offset, not UTC with Z.
  // `zone` must outlive the writer.
  void set_local_zone(const TimeZone* zone) { local_zone_ = zone; }
  // --window-label: a window_label field after window_end, `label`'s text for the window's
  // start. `label` must outlive the writer. REQUIRES: before WriteHeader and the first record.
  void set_window_label(const WindowLabel* label);
  // Without `flush`, EndRecord leaves a record in the output's buffer (for ChangeWriter, which
  // takes it out again); the caller flushes. Default: flush.
  void set_flush_each_record(bool flush) { flush_each_record_ = flush; }

  // Writes the CSV header row; nothing for NDJSON.
  void WriteHeader();
  void BeginRecord(Nanos start, Nanos end) override;
  void Key(const ValueRef& v) override { Value(v); }
  void EndRecord(const RecordRevision& revision) override;

  void Null() override;
  void Int(__int128 v) override;
  void Double(double v) override;
  void Value(const ValueRef& v) override;

 private:
  // Starts the next column: its separator and, for NDJSON, its name.
  void NextColumn();
  void AppendCsvField(std::string_view s);
  // Sets json_prefix_ from names_.
  void SetPrefixes();

  OutputFormat format_;
  const TimeZone* local_zone_ = nullptr;  // null: bounds in UTC
  const WindowLabel* label_ = nullptr;    // null: no window_label
  size_t first_data_ = 2;                 // the first column after the window's
  std::vector<std::string> names_;        // all column names in order
  std::vector<std::string> json_prefix_;  // ,"name": per column, pre-escaped
  bool with_revision_;
  bool flush_each_record_ = true;
  OutputFile* out_;
  size_t column_ = 0;
  // The last window's bounds (and label), formatted: consecutive records mostly share them.
  Nanos last_start_ = 0, last_end_ = 0;
  std::string last_bounds_;
  bool have_bounds_ = false;
};

}  // namespace logtide
