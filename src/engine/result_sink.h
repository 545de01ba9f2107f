// Where fired windows become result records: written by the FiringWriter
// (output/firing_writer.h: sorted by (end, start, key)) on the engine's thread, or handed to
// the OutputThread when there is one (the same FiringWriter, on a thread of its own).
#pragma once

#include <cstdint>

#include "agg/accumulators.h"
#include "engine/correction_stats.h"
#include "engine/output_thread.h"
#include "keys/key_table.h"
#include "output/firing_writer.h"
#include "output/record_writer.h"
#include "window/window_operator.h"

namespace logtide {

class ResultSink final : public ResultEmitter {
 public:
  // `windows_emitted` counts the records. The pointees outlive the sink.
  ResultSink(const KeyTable* keys, const Accumulators* acc, uint64_t* windows_emitted)
      : keys_(keys), acc_(acc), windows_emitted_(windows_emitted) {}

  // Writes with `writer`; with `thread`, through that thread instead. REQUIRES: before the
  // first EmitWindows.
  void set_writer(RecordSink* writer) { writer_ = writer; }
  void set_output_thread(OutputThread* thread) { thread_ = thread; }
  // Every firing is shown to `c` too (update mode with --lateness). REQUIRES: before the first
  // EmitWindows.
  void set_corrections(CorrectionStats* c) { corrections_ = c; }

  void EmitWindows(const std::vector<WindowResult>& results, const FiringOrder& order) override;

 private:
  const KeyTable* keys_;
  const Accumulators* acc_;
  uint64_t* windows_emitted_;
  RecordSink* writer_ = nullptr;
  OutputThread* thread_ = nullptr;
  CorrectionStats* corrections_ = nullptr;
  FiringWriter firing_;
};

}  // namespace logtide
