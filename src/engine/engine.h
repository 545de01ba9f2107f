// The engine: reads every input line by line (watermark-aligned across inputs), extracts the
// event, assigns it to windows, advances the watermark, and writes the records that fire.
// Bad lines and late events are counted and reported; see man/logtide.1 for the semantics.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/counters.h"
#include "engine/progress.h"
#include "time/timestamp.h"
#include "util/status.h"

namespace logtide {

class CorrectionStats;

class Engine {
 public:
  // Validates what only the engine can (field paths, output names), opens nothing yet.
  static Status Create(const EngineConfig& config, std::unique_ptr<Engine>* out);
  ~Engine();

  // Makes SIGINT and SIGTERM stop a run cleanly instead of killing the process: the run stops
  // at a line boundary (at once, if the signal came before it started), writes the records of
  // the windows that had fired, and with --state takes a final checkpoint. For the command
  // line, first thing in main. A second signal ends the process at once (its default action).
  // Without this, those signals have their default action.
  static void InstallStopHandlers();

  // Runs the query to the end of all inputs. Warnings and the first bad lines go to `diag`.
  // Errors: IOError (an input or output failed), DataError (a bad line under --on-error fail).
  // With config.state_path, resumes from and checkpoints to that state (errors: Busy, Refused,
  // Corruption, IOError). See InstallStopHandlers for SIGINT and SIGTERM.
  Status Run(std::FILE* diag, ProgressListener* progress = nullptr);

  // The job's counters: with --state, since the job began (earlier runs included).
  const EngineStats& stats() const { return stats_; }
  // This run's counters: stats() less what earlier runs of the job counted.
  EngineStats run_stats() const;
  // True when a run with --state found a finished stream and no new input: it did nothing.
  bool nothing_to_do() const;
  // The signal that stopped the run at a line boundary (SIGINT, SIGTERM), or 0.
  int stopped_by_signal() const;
  const EngineConfig& config() const { return config_; }
  // Records --having let through in this run (0 without --having). REQUIRES: Run returned.
  uint64_t having_matched() const;
  // Update mode with --lateness: how much this run's on-time records were corrected (null
  // otherwise). REQUIRES: Run returned.
  const CorrectionStats* corrections() const;

 private:
  struct Impl;
  explicit Engine(const EngineConfig& config);
  EngineConfig config_;
  EngineStats stats_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace logtide
