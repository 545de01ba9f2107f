// The configuration of a run: the query (query/query.h) and how the run reads, waits, writes
// and checkpoints; checked by the caller's parsing (cli/) and completed by ValidateConfig
// (validate_config.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "query/query.h"
#include "time/clock.h"
#include "time/timestamp.h"

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

// The query's fields (Query) are the settings that change results; the rest only how the run
// gets them.
struct EngineConfig : Query {
  bool follow = false;  // read files as they grow, across rotations (LineReader::set_follow)
  std::string output = "-";
  std::string late_output;    // empty: late events are only counted
  std::string errors_output;  // empty: bad lines are only reported and counted
  OnError on_error = OnError::kSkip;
  int max_reported_errors = 5;   // bad lines shown on stderr under --on-error skip
  double max_bad_ratio = 1;      // a run with a larger share of bad lines fails (DataError)
  size_t buffer_size = 1 << 20;  // initial input buffer; results never depend on it
  bool quiet = false;            // no warnings on the diagnostics stream
  int threads = 1;               // > 1: that many threads parse ahead (engine/parse_pool.h)
  int apply_threads = 1;         // > 1: that many threads apply events (apply/parallel_apply.h)

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

}  // namespace logtide
