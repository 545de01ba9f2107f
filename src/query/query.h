// The query: what a job reads and what it computes from it, as the flags gave them and
// ValidateConfig (engine/validate_config.h) completed them. The settings that change its
// records are its identity (QueryText: a state file is only resumed by the same query); the
// SQL renderings (plan/) are built from it alone.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agg/agg_spec.h"
#include "input/line_limits.h"
#include "lineformat/input_format.h"
#include "output/change_format.h"
#include "output/output_format.h"
#include "time/timestamp.h"
#include "window/emit_mode.h"
#include "window/window_spec.h"

namespace logtide {

struct Query {
  std::vector<std::string> inputs;  // "-" is stdin; empty means stdin
  // --input-format: what the inputs' lines are (lineformat/input_format.h), and, from
  // --input-format INPUT=FORMAT, the inputs (named as in `inputs`) whose lines are another.
  InputFormat input_format = InputFormat::kNdjson;
  std::vector<std::pair<std::string, InputFormat>> input_formats;
  // The format of the lines of inputs[i] (no inputs: standard input's, "-").
  InputFormat FormatOf(size_t i) const {
    return i < inputs.size() ? FormatOf(inputs[i]) : FormatOf(std::string_view("-"));
  }
  InputFormat FormatOf(std::string_view input) const {
    for (const auto& [name, format] : input_formats) {
      if (name == input) return format;
    }
    return input_format;
  }
  // Whether every input's lines are of one format (no input: standard input, "-"), and that
  // format in *format (inputs[0]'s when they differ).
  bool OneFormat(InputFormat* format) const {
    *format = FormatOf(size_t{0});
    for (size_t i = 1; i < inputs.size(); ++i) {
      if (FormatOf(i) != *format) return false;
    }
    return true;
  }
  // Whether every input's lines are NDJSON.
  bool AllNdjson() const {
    InputFormat f;
    return OneFormat(&f) && f == InputFormat::kNdjson;
  }
  std::string time_field = "ts";
  std::string time_format = "auto";
  WindowSpec window;
  // The group key: per --by, the output field's name, and the field path read for it (a plain
  // --by FIELD: by[i] is the path) unless by_expr[i] holds a derived key's expression
  // (--by NAME=EXPR, expr/expr.h, in canonical text). by_expr is empty or as long as by.
  std::vector<std::string> by;
  std::vector<std::string> by_expr;
  // --where: events for which any of these (canonical texts) is not true are skipped.
  std::vector<std::string> where;
  // --having: records for which any of these (canonical texts) is not true are not written
  // (output/having_filter.h).
  std::vector<std::string> having;
  // The same as the user wrote them, for messages only (not the identity): as long as `having`,
  // or empty (messages then show the canonical texts).
  std::vector<std::string> having_written;
  std::vector<AggSpec> aggs;  // empty means one plain count
  Nanos delay = 0;
  Nanos lateness = 0;
  // > 0: inputs waited on with no new line for this long are idle (watermark/idleness.h).
  Nanos idle_timeout = 0;
  // > 0: an event this far ahead of the watermark (of the wall clock before there is one) is
  // a bad line instead of moving event time (a clock glitch).
  Nanos max_future = 0;
  EmitMode emit = EmitMode::kFinal;
  // > 0 (--early): provisional records while a window is open, at each start + k*early.
  // REQUIRES (ValidateConfig): less than the window's size for tumbling and sliding windows.
  Nanos early = 0;
  // > 0 (--early-every): provisional records while a window is open, every early_every of
  // processing time (the wall clock), for live input only (the engine refuses it otherwise).
  Nanos early_every = 0;
  OutputFormat format = OutputFormat::kNdjson;
  // --changes: how a revision is written (output/change_writer.h). REQUIRES (ValidateConfig):
  // kSnapshot unless records have revisions.
  ChangeFormat changes = ChangeFormat::kSnapshot;
  // --local-times: window_start and window_end written in window.zone's local time with its
  // UTC offset (TimeZone::AppendLocalRfc3339), not as UTC instants. REQUIRES: window.has_zone.
  bool local_times = false;
  // --window-label: records carry window_label, right after window_end: the window's local
  // start in window.zone in its calendar unit (window/window_label.h). REQUIRES (ValidateConfig):
  // a tumbling window.
  bool window_label = false;
  // A longer line is a bad line, dropped as it is read (LineReader::set_max_line_length).
  size_t max_line_length = kDefaultMaxLineLength;
};

// The settings that change results, one "name=value" per line: a state file is only resumed
// by a run with the same query. The inputs and --idle-timeout are not among them: a resumed
// run may read other files and wait otherwise.
std::string QueryText(const Query& query);

// Whether records carry revision, phase and final fields: in update mode, and with --early or
// --early-every.
inline bool Revised(const Query& query) {
  return query.emit == EmitMode::kUpdate || query.early > 0 || query.early_every > 0;
}

// The output fields' names of the group key, per --by: a derived key's NAME, or the path's
// name (json/field_path.h: ."log.level" gives "log.level").
std::vector<std::string> KeyNames(const Query& query);
// The output fields' names of the aggregates, per --agg.
std::vector<std::string> AggNames(const Query& query);

// A record's fields, as --having reads them (output/having_filter.h, and the SQL twins).
struct RecordFields {
  // window_start, window_end[, window_label], the keys, the aggregates[, revision, phase,
  // final]
  std::vector<std::string> names;
  // Per key field (names[first_key + i]): the path --by read it from (canonical text), "" if
  // derived.
  std::vector<std::string> key_paths;
  // The first key field's index: 2, or 3 after window_label.
  size_t first_key = 2;
  bool with_revision = false;
};
RecordFields RecordFieldsOf(const Query& query);
// Returns the field of `fields` an expression's path (canonical text, json/field_path.h)
// names: a field's name as one key (count, ."log.level"), or a plain key's --by path
// (req.method for --by req.method, whose field is "req.method"); -1 for none.
int FindRecordField(const RecordFields& fields, const std::string& path);

}  // namespace logtide
