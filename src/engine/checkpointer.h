// The checkpoint loop and procedure: every stateful part of the job registers as a
// CheckpointComponent, and a checkpoint saves each as a section and commits them all, with the
// window log's changes, in one StateStore transaction; a resumed run restores them in the order
// they registered. The procedure around the loop lives here too: when a checkpoint is due
// (--checkpoint-every, --checkpoint-interval), what must hold before one commits (compressed
// inputs checked, records written and synced, idleness settled), when the window log is
// rewritten whole, the facts `inspect` shows, and the check of a resumed state (the window
// operator and the watermark agree).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/counters.h"
#include "state/checkpoint.h"
#include "state/state_store.h"
#include "time/timestamp.h"
#include "util/time_math.h"
#include "util/status.h"

namespace logtide {

class Clock;
class Idleness;
class InputSet;
class OutputSet;
class OutputThread;
class WatermarkTracker;
class ParallelApply;

// The parts of a job a checkpoint looks at besides its components.
struct CheckpointDeps {
  InputSet* inputs;
  OutputSet* outputs;
  WindowLogComponent* windows;  // the window state (an operator, or parallel apply's workers)
  WatermarkTracker* tracker;
  Idleness* idleness;
  const Clock* clock;
  EngineStats* stats;
};

class Checkpointer {
 public:
  // The loop alone (Add, Restore, Commit).
  explicit Checkpointer(StateStore* store) : store_(store) {}
  // The loop and the procedure (also Resume, Take, AfterLine, OnTimer).
  // REQUIRES: `config` and the deps outlive the Checkpointer.
  Checkpointer(StateStore* store, const EngineConfig* config, const CheckpointDeps& deps)
      : store_(store), config_(config), deps_(deps) {}

  // Adds a component; components are saved in the order they are added, and restored in that
  // order with the window log's component last.
  // REQUIRES: its section name is not taken; it outlives the Checkpointer.
  void Add(CheckpointComponent* c) { components_.push_back({c, c, nullptr}); }
  // Adds the one component that writes the window log.
  void Add(WindowLogComponent* c) { components_.push_back({c, nullptr, c}); }

  // Restores every component from `cp` (StateStore::Load), after checking that every
  // component has its section in its format and no section is unknown. Errors: Refused for a
  // section in another format or one no component knows (another logtide wrote it) before
  // anything is loaded, or for a state that does not fit this run; Corruption for a missing
  // or damaged section. Nothing is written either way.
  Status Restore(const Checkpoint& cp);

  // Saves every component into *cp (sections and window log changes; with cp->compact, the
  // whole window state) and commits it. The caller sets cp's other fields.
  Status Commit(Checkpoint* cp);

  // Loads the saved checkpoint and restores every component (Restore), then the window log's
  // length and the number of checkpoints. Sets *finished
  // when the saved job's stream had ended. Errors: those of Load and Restore; Corruption when
  // the window operator and the watermark disagree.
  Status Resume(bool* finished);

  // Takes a checkpoint now: waits for the compressed inputs read so far to be checked whole,
  // for the output thread (when set) to write what it holds, syncs the outputs, settles
  // idleness, then commits every component, the window log whole when it has grown past twice
  // the live rows (or `finished`: a finished job's log ends empty). Errors: from any step; the
  // checkpoint is then not committed.
  Status Take(bool finished);

  // Counts a line consumed; takes a checkpoint when --checkpoint-every lines came since the
  // last. (--checkpoint-interval is a processing-time timer of the read loop: UntilDue, OnTimer.)
  Status AfterLine() {
    return ++since_ < config_->checkpoint_every ? Status::Ok() : Take(false);
  }
  // How long until a timed checkpoint is due at `now`, on the job's clock: --checkpoint-interval
  // after the last checkpoint of any kind (or Start); 0 when it is due, or when the clock was
  // set back past the last one (a clock set back holds no checkpoint back).
  Nanos UntilDue(Nanos now) const {
    if (last_ > now) return 0;
    return std::max<Nanos>(0, SatSub(SatAdd(last_, config_->checkpoint_interval), now));
  }
  // The timed checkpoint's timer went off at `now`: a checkpoint when one is due and lines came
  // since the last.
  Status OnTimer(Nanos now) { return since_ > 0 && UntilDue(now) == 0 ? Take(false) : Status::Ok(); }
  // The interval starts again now (the read loop's start).
  void Start() { last_ = deps_.clock->Now(); }

  // The records of a firing are written by this thread from now on (null: by the caller's).
  void set_output_thread(OutputThread* t) { output_thread_ = t; }
  // The events are applied by these workers from now on (null: by the caller's thread): a
  // checkpoint first waits until every event handed to them is applied and its records
  // written (a barrier: the cut is at the line the checkpoint is taken after), and adds what
  // they counted since to the counters.
  void set_parallel_apply(ParallelApply* apply) { apply_ = apply; }
  // Checkpoints the job committed, in all its runs.
  uint64_t checkpoints() const { return checkpoints_; }

 private:
  void AtPoint(const char* point, uint64_t n) const {
    if (config_->faults.at_checkpoint != nullptr) config_->faults.at_checkpoint(point, n);
  }

  StateStore* store_;
  const EngineConfig* config_ = nullptr;
  CheckpointDeps deps_{};
  OutputThread* output_thread_ = nullptr;
  ParallelApply* apply_ = nullptr;
  struct Part {
    SectionFormat* format;
    CheckpointComponent* plain;    // either this
    WindowLogComponent* windows;   // or this
  };
  std::vector<Part> components_;
  uint64_t checkpoints_ = 0;
  uint64_t window_log_rows_ = 0;
  uint64_t since_ = 0;  // lines consumed since the last checkpoint
  Nanos last_ = 0;  // when the last checkpoint was taken, on deps_.clock
};

}  // namespace logtide
