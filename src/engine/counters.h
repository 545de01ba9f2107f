// The job's counters, and their checkpoint component (section "counters"): a run resumed
// from --state continues the job's totals.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "state/checkpoint.h"
#include "util/state_codec.h"

namespace logtide {

struct EngineStats {
  uint64_t lines = 0;   // lines read, blank ones included
  uint64_t events = 0;  // lines that became events
  uint64_t bad_lines = 0;
  uint64_t late_events = 0;
  uint64_t windows_emitted = 0;          // result records written
  uint64_t bytes_read = 0;               // by this run
  uint64_t checkpoints = 0;              // committed by this run
  double checkpoint_seconds = 0;         // spent in them
  uint64_t last_checkpoint_rows = 0;     // window rows written by the last one
  std::vector<uint64_t> ignored_values;  // per aggregate: values of the wrong type
  uint64_t filtered = 0;                 // events --where skipped
  // Windows that overlap (WindowSpec::overlaps): an event's windows close one after another,
  // and it may come after some of them closed.
  uint64_t partly_late_events = 0;  // events added to some of their windows, not all
  uint64_t missed_windows = 0;      // (event, window) pairs dropped as late: every window of a
                                    // late event, the closed ones of a partly late event
  // Counts above are for the whole job: a run resumed from --state continues them.

  // The job's counts less `earlier` (what the runs before this one counted); bytes_read and the
  // checkpoints' counts are this run's already and stay.
  EngineStats Since(const EngineStats& earlier) const;
};

// A "counters" section as a checkpoint holds it, for `logtide inspect`.
struct SavedCounters {
  EngineStats stats;      // the counters; ignored_values sized by the section
  uint64_t seq = 0;       // the events' sequence number
  uint32_t reported = 0;  // bad lines shown on the terminal
  uint32_t version = 0;   // the section's: before 3, partly_late_events and missed_windows
                          // were not counted (0 here)
};

// Decodes a "counters" section of any version CountersState reads. Returns false when it does
// not decode (damaged, or a version it does not read).
bool DecodeCounters(std::string_view data, uint32_t version, SavedCounters* out);

// The counters, the events' sequence number (for first()/last()) and the number of bad lines
// shown on the terminal, as one checkpoint component.
class CountersState final : public CheckpointComponent {
 public:
  // REQUIRES: the pointees outlive this object; stats->ignored_values is sized.
  CountersState(EngineStats* stats, uint64_t* seq, int* reported)
      : stats_(stats), seq_(seq), reported_(reported) {}

  // Version 2 added the filtered count, version 3 the partly late events and the missed
  // windows. Every query writes version 3 (a format's version is a function of the code, not
  // of the query) and reads the versions before it, which f7668ee's logtide wrote (1 without
  // --where, 2 with): the counters they lack start at 0.
  std::string_view section() const override { return "counters"; }
  static constexpr uint32_t kVersion = 3;
  uint32_t version() const override { return kVersion; }
  bool Reads(uint32_t version) const override { return version >= 1 && version <= 3; }
  Status Save(std::string* data) override;
  // Describes the form Save writes, field by field (util/state_codec.h), for savepoints.
  static void DescribeSection(StateCodec* c);
  Status Load(std::string_view data, uint32_t version) override;

 private:
  EngineStats* stats_;
  uint64_t* seq_;
  int* reported_;
};

}  // namespace logtide
