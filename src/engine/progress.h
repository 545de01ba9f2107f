// A run's progress for a progress display: what a listener is given, and the snapshot the read
// loop takes of its inputs, counters and windows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "time/timestamp.h"

namespace logtide {

class InputSet;

// A snapshot of a run's progress.
struct Progress {
  uint64_t bytes_read = 0;
  uint64_t total_bytes = 0;  // sum of the regular files' sizes; 0 when unknown (stdin, pipes)
  uint64_t events = 0;
  Nanos watermark = 0;
  size_t open_windows = 0;
  bool done = false;  // the last call, after the last line
};

class ProgressListener {
 public:
  virtual ~ProgressListener() = default;
  // Called from the reading loop at most every kProgressEvery, and once with done set.
  virtual void OnProgress(const Progress& p) = 0;
  // Called before the engine writes a message to the diagnostics stream.
  virtual void Clear() = 0;
};

inline constexpr Nanos kProgressEvery = kNanosPerSecond / 5;  // 200 ms

// The bytes read so far: `read_to` is, per input, the end of the last line processed. The
// total is unknown (0) when an input is compressed: its decompressed size is not known.
Progress InputProgress(InputSet& inputs, const std::vector<uint64_t>& read_to);

}  // namespace logtide
