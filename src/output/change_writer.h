// --changes retract|debezium: writes each record as a change of the one before it of the same
// window and key, and keeps, per window and key, the last record written until no more can
// come (a checkpoint component, section "changes").
//
// It sits between --having (or the FiringWriter) and the RecordWriter, whose bytes for a
// record it takes out of the output buffer and writes again as changes:
//   retract, NDJSON:  {"op":"-",<the previous record's fields>}  then  {"op":"+",<the new>}
//   retract, CSV:     an "op" column first: -,<previous row>  then  +,<new row>
//   debezium, NDJSON: {"op":"c","before":null,"after":{<new>}}        a first record
//                     {"op":"u","before":{<previous>},"after":{<new>}} same window bounds
//                     {"op":"d","before":{<previous>},"after":null}    taken back
// A record's predecessors are the records written before of its key: for tumbling and sliding
// windows the one of the same window; for sessions every one whose window lies inside the new
// record's (sessions only grow and merge, so those are the records of the sessions it grew
// from or swallowed; the sessions of a key are disjoint). Retract writes "-" for each
// predecessor (by window start) then "+"; debezium writes a "d" for each predecessor with
// other bounds (a row's primary key changed, as Debezium writes it), then "u" for the one with
// the same bounds, or else "c". A record --having withholds (RecordRevision::withheld) takes
// its predecessors back and writes nothing of its own. A final record forgets its window and
// key; so does a withheld one.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "json/json_checker.h"
#include "output/change_format.h"
#include "output/output_file.h"
#include "output/output_format.h"
#include "output/record_writer.h"
#include "state/checkpoint.h"
#include "util/state_codec.h"
#include "time/timestamp.h"

namespace logtide {

class ChangeWriter final : public RecordSink, public CheckpointComponent {
 public:
  // REQUIRES: `format` is kRetract or kDebezium; debezium only with NDJSON.
  // `key_fields`: the values in a group key (one per --by key).
  ChangeWriter(ChangeFormat format, OutputFormat out_format, bool sessions, size_t key_fields)
      : format_(format), out_format_(out_format), sessions_(sessions), key_fields_(key_fields) {}

  // Where the records go: `writer` formats them into `out`'s buffer. Sets the writer not to
  // flush after each record. REQUIRES: before the first record; both outlive the ChangeWriter.
  void set_writer(RecordWriter* writer, OutputFile* out);
  // The CSV header row, with "op" first; nothing for NDJSON.
  void WriteHeader();

  void BeginRecord(Nanos start, Nanos end) override;
  void Key(const ValueRef& v) override;
  void EndRecord(const RecordRevision& revision) override;
  void EndFiring() override { writer_->EndFiring(); }
  void Null() override { writer_->Null(); }
  void Int(__int128 v) override { writer_->Int(v); }
  void Double(double v) override { writer_->Double(v); }
  void Value(const ValueRef& v) override { writer_->Value(v); }

  // The (window, key) pairs whose last record is kept.
  size_t open_records() const { return last_.size(); }

  // Version 1: the first.
  static constexpr uint32_t kVersion = 1;
  std::string_view section() const override { return "changes"; }
  uint32_t version() const override { return kVersion; }
  Status Save(std::string* data) override;
  // Describes the form Save writes, field by field (util/state_codec.h), for savepoints, of a
  // job writing `out_format`: a kept record must be one such a job writes.
  static void DescribeSection(OutputFormat out_format, StateCodec* c);
  // Whether `body` is a record's fields as a job writing `out_format` keeps them: NDJSON, the
  // members of one JSON object without its braces; CSV, one row without its newline (its
  // quotes closed, a line break only inside them). `checker` reads JSON as deep as a record
  // may be: kRecordDepth.
  static bool IsRecordBody(OutputFormat out_format, std::string_view body, JsonChecker* checker);
  // A record nests an input's value (at most 1023 levels inside its line) at most 3 levels
  // deeper, in a top_k entry.
  static constexpr size_t kRecordDepth = 2048;
  Status Load(std::string_view data, uint32_t version) override;

 private:
  struct Id {
    std::string key;  // EncodeValue form, one value per key field
    Nanos start;
  };
  struct IdView {
    std::string_view key;
    Nanos start;
  };
  struct IdLess {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      const int c = std::string_view(a.key).compare(std::string_view(b.key));
      return c < 0 || (c == 0 && a.start < b.start);
    }
  };
  struct Last {
    Nanos end;
    std::string body;  // the record's fields without braces (NDJSON), the row without '\n' (CSV)
  };
  using Map = std::map<Id, Last, IdLess>;

  // Writes one change line: `op` with `before` and/or `after` (null: none).
  void WriteChange(char op, const std::string* before, const std::string* after);

  ChangeFormat format_;
  OutputFormat out_format_;
  bool sessions_;
  size_t key_fields_;
  RecordWriter* writer_ = nullptr;
  OutputFile* out_ = nullptr;
  Map last_;
  // The record being written.
  Nanos start_ = 0, end_ = 0;
  std::string key_;
  size_t mark_ = 0;   // where its bytes start in the output buffer
  std::string body_;  // its bytes, taken out of the buffer
  std::vector<Map::iterator> before_;  // its predecessors
};

}  // namespace logtide
