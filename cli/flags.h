// Command-line flags: CLI11 binds them to Options, which are then checked and turned into
// the engine's configuration.
#pragma once

#include <string>
#include <vector>

#include "engine/config.h"
#include "util/status.h"
#include "util/version.h"

namespace logtide {

// Exit codes, documented in man/logtide.1 (EXIT STATUS).
// --checkpoint-every's largest value: 10^12 lines, more than any input would need to be
// checkpointed at its end only.
inline constexpr uint64_t kMaxCheckpointEvery = 1'000'000'000'000;

inline constexpr int kExitOk = 0;
inline constexpr int kExitIoError = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitBadInput = 3;
inline constexpr int kExitStateBusy = 4;
inline constexpr int kExitStateRefused = 5;

inline constexpr const char* kVersion = kLogtideVersion;

struct Options {
  std::vector<std::string> files;
  std::string time_field = "ts";
  std::string time_format = "auto";
  std::vector<std::string> input_formats;  // --input-format FORMAT or INPUT=FORMAT, repeatable
  std::string window;
  std::string tz;  // --tz ZONE: empty when not given
  bool local_times = false;  // --local-times: window bounds in the --tz zone's local time
  bool window_label = false;  // --window-label: records name their window's local date
  std::vector<std::string> by;
  std::vector<std::string> aggs;
  std::vector<std::string> where;
  std::vector<std::string> having;
  std::string delay = "0";
  std::string lateness = "0";
  std::string idle_timeout;  // empty: inputs are never idle
  bool follow = false;
  std::string max_future;  // empty: no limit
  std::string emit = "final";
  std::string early;
  std::string early_every;
  std::string changes = "snapshot";
  std::string late_output;
  std::string on_error = "skip";
  double max_bad_ratio = 1;
  std::string errors;
  std::string output = "-";
  std::string format = "ndjson";
  bool stats = false;
  bool quiet = false;
  size_t io_buffer = 1 << 20;
  std::string max_line_length;  // empty: the default
  int threads = 0;  // 0: one per core
  int apply_threads = 1;
  std::string state;
  uint64_t checkpoint_every = 100000;
  std::string checkpoint_interval = "5s";
  bool hold = false;
  bool durable = false;
  bool reread_replaced = false;
  bool overwrite = false;
  bool change_outputs = false;
  bool allow_missing_inputs = false;
};

// The number of parsing threads when --threads is not given: one more than the machine's
// cores, at most 8; 1 on a single core.
int DefaultThreads();

// Checks the options and builds the engine configuration; the message names the flag.
Status BuildConfig(const Options& o, EngineConfig* config);

}  // namespace logtide
