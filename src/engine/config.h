// The query and run options the engine needs, already validated by the caller's parsing
// (cli/) except where Engine::Create says otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "agg/agg_spec.h"
#include "input/line_limits.h"
#include "output/output_format.h"
#include "time/clock.h"
#include "time/timestamp.h"
#include "window/emit_mode.h"
#include "window/window_spec.h"

namespace logtide {

enum class OnError { kSkip, kFail };

// Fault injection for the crash and fault tests: the test build of the binary
// (tests/faults/faults_main.cc) sets these from its environment; the logtide binary never does.
struct FaultHooks {
  // Called at the named points of checkpoint N (1 for the job's first): "before-flush"
  // (records still buffered), "before-commit" (outputs written, state not), "after-commit".
  void (*at_checkpoint)(const char* point, uint64_t checkpoint) = nullptr;
  // The window log is compacted once it would hold more than twice the live rows plus this
  // (a large value lets the log grow long, as a test of its replay).
  uint64_t compact_slack = 0;
  // When >= 0: the writes to the outputs after this many fail with ENOSPC, as on a full disk.
  int64_t fail_writes_after = -1;
};

struct EngineConfig {
  std::vector<std::string> inputs;  // "-" is stdin; empty means stdin
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
  std::vector<AggSpec> aggs;    // empty means one plain count
  Nanos delay = 0;
  Nanos lateness = 0;
  // > 0: inputs waited on with no new line for this long are idle (watermark/idleness.h).
  Nanos idle_timeout = 0;
  // > 0: an event this far ahead of the watermark (of the wall clock before there is one) is
  // a bad line instead of moving event time (a clock glitch).
  Nanos max_future = 0;
  bool follow = false;  // read files as they grow, across rotations (LineReader::set_follow)
  EmitMode emit = EmitMode::kFinal;
  std::string output = "-";
  OutputFormat format = OutputFormat::kNdjson;
  std::string late_output;    // empty: late events are only counted
  std::string errors_output;  // empty: bad lines are only reported and counted
  OnError on_error = OnError::kSkip;
  int max_reported_errors = 5;   // bad lines shown on stderr under --on-error skip
  double max_bad_ratio = 1;      // a run with a larger share of bad lines fails (DataError)
  size_t buffer_size = 1 << 20;  // initial input buffer; results never depend on it
  // A longer line is a bad line, dropped as it is read (LineReader::set_max_line_length).
  size_t max_line_length = kDefaultMaxLineLength;
  bool quiet = false;            // no warnings on the diagnostics stream
  int threads = 1;               // > 1: that many threads parse ahead (engine/parse_pool.h)

  // Durable state (--state): see state/state_store.h and man/logtide.1, STATE.
  std::string state_path;                           // empty: no state
  uint64_t checkpoint_every = 100000;               // lines between checkpoints
  Nanos checkpoint_interval = 5 * kNanosPerSecond;  // and at least this often
  bool hold = false;             // at the end of input, keep windows open for the next run
  bool durable = false;          // fsync outputs and commit with synchronous=FULL
  bool reread_replaced = false;  // a truncated or replaced input is read from its start
  bool overwrite = false;        // a new job may replace outputs that already hold data
  bool change_outputs = false;   // a resume may add, drop or move outputs (OutputSet)
  bool allow_missing_inputs = false;    // a resume may leave off a file with unread bytes

  // The wall clock for --idle-timeout (time/clock.h); null: the system's. Not owned.
  const Clock* clock = nullptr;

  FaultHooks faults;  // tests only
};

// The settings that change results, one "name=value" per line: a state file is only resumed
// by a run with the same query.
std::string QueryText(const EngineConfig& config);

// The output fields' names of the group key, per --by: a derived key's NAME, or the path's
// name (json/field_path.h: ."log.level" gives "log.level").
std::vector<std::string> KeyNames(const EngineConfig& config);

}  // namespace logtide
