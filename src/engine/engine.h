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
#include "util/status.h"

namespace logtide {

struct EngineStats {
  uint64_t lines = 0;           // lines read, blank ones included
  uint64_t events = 0;          // lines that became events
  uint64_t bad_lines = 0;
  uint64_t late_events = 0;
  uint64_t windows_emitted = 0; // result records written
  uint64_t bytes_read = 0;
  std::vector<uint64_t> ignored_values;  // per aggregate: values of the wrong type
};

class Engine {
 public:
  // Validates what only the engine can (field paths, output names), opens nothing yet.
  static Status Create(const EngineConfig& config, std::unique_ptr<Engine>* out);
  ~Engine();

  // Runs the query to the end of all inputs. Warnings and the first bad lines go to `diag`.
  // Errors: IOError (an input or output failed), DataError (a bad line under --on-error fail).
  Status Run(std::FILE* diag);

  const EngineStats& stats() const { return stats_; }
  const EngineConfig& config() const { return config_; }

 private:
  struct Impl;
  explicit Engine(const EngineConfig& config);
  EngineConfig config_;
  EngineStats stats_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace logtide
