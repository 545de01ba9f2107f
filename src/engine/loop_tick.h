// The read loop's tick: what the loop does besides applying lines, at the processing time the
// job's Clock gives. While input is awaited, idle inputs are seen to (IdleInputs) and what was
// decided goes out at once (the output thread drained, the outputs synced); waiting or not,
// the processing-time timers due run (LoopTimers: a flush deadline for live input, a timed
// checkpoint, a progress report, the window operator's own timers: --early-every's trigger,
// whose firing is followed by a checkpoint under --state). The loop calls Tick while it waits
// and, while a timer is set, every 1024 lines and at each block of live input.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "engine/counters.h"
#include "engine/loop_timers.h"
#include "time/timestamp.h"
#include "util/status.h"

namespace logtide {

class Checkpointer;
class ParallelApply;
class Clock;
class IdleInputs;
class OutputSet;
class OutputThread;
class ParsePool;
class WindowOperator;

class LoopTick {
 public:
  // Live input that keeps coming: what was decided goes out once this passed since the last
  // flush, without waiting for the output thread.
  static constexpr Nanos kFlushDeadline = kNanosPerSecond / 100;  // 10 ms

  struct Deps {
    const EngineStats* stats;
    OutputSet* outputs;
    WindowOperator* op;
    IdleInputs* idle;
    Checkpointer* checkpointer;                     // null without --state
    std::function<void()> progress;                 // empty without a progress listener
    Nanos checkpoint_interval;
    const Clock* clock;                             // the loop's processing time
  };
  // REQUIRES: the deps outlive this.
  explicit LoopTick(Deps deps) : deps_(std::move(deps)) {}

  // The records of a firing are written by this thread from now on (null: by the loop's).
  void set_output_thread(OutputThread* t) { output_thread_ = t; }
  // The records are written by parallel apply's merge thread (null: not): a flush of the
  // results waits until it has written what it was handed.
  void set_parallel_apply(ParallelApply* a) { apply_ = a; }

  // The loop starts at `now` (the window operator's processing-time trigger is set from it);
  // `live`: an input may keep coming (a pipe, a followed file).
  void Start(Nanos now, bool live);
  // Whether a timer is set: the loop need not tick between waits otherwise.
  bool any() const;

  // A tick at `now`. `waiting`: the loop waits on input `waiting_on` (-1: on any), in `pool`,
  // with `done` saying which inputs were read to their end. Returns false when the loop should
  // stop waiting on it (IdleInputs::WhileWaiting). Errors wait in status().
  bool Tick(Nanos now, bool waiting, ParsePool* pool, int waiting_on,
            const std::vector<bool>& done);
  // A tick at the clock's time, while the loop waits on input `waiting_on` or (-1) on any.
  bool Tick(bool waiting, ParsePool* pool, int waiting_on, const std::vector<bool>& done);
  // Every unfinished input is idle: ticks (every 10 ms) until one has lines ready in `pool`,
  // *stop is non-zero (a stop signal) or a tick failed.
  void WaitForAny(ParsePool* pool, const std::vector<bool>& done, const volatile int* stop);
  // The first error of a tick; the loop stops with it.
  const Status& status() const { return status_; }

 private:
  void Run(LoopTimers::Job job, Nanos now);
  // While input is awaited: what was decided since the last flush goes out at once.
  void FlushWhileWaiting(Nanos now);
  // Records, late events and bad lines decided so far.
  uint64_t Decided() const;

  Deps deps_;
  OutputThread* output_thread_ = nullptr;
  ParallelApply* apply_ = nullptr;
  LoopTimers timers_;
  bool live_ = false;
  uint64_t flushed_ = 0;  // Decided() when the outputs were last flushed
  Status status_;
};

}  // namespace logtide
