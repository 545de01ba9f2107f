// The progress line on standard error: bytes read (of the total, for files), MB/s, events,
// watermark, open windows and ETA, updated in place on a terminal.
#pragma once

#include <chrono>
#include <cstdio>

#include "engine/engine.h"

namespace logtide {

class ProgressPrinter final : public ProgressListener {
 public:
  // forced: --progress was given (shown even when `out` is not a terminal, one line per update).
  // Otherwise shown only on a terminal, and only once 8 MB have been read.
  ProgressPrinter(std::FILE* out, bool forced);
  void OnProgress(const Progress& p) override;
  void Clear() override;

 private:
  std::FILE* out_;
  bool forced_;
  bool tty_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace logtide
