#include "engine/loop_tick.h"

#include <array>
#include <chrono>
#include <thread>

#include "apply/parallel_apply.h"
#include "engine/checkpointer.h"
#include "engine/idle_inputs.h"
#include "engine/output_thread.h"
#include "engine/progress.h"
#include "output/output_set.h"
#include "time/clock.h"
#include "window/window_operator.h"

namespace logtide {

void LoopTick::Start(Nanos now, bool live) {
  live_ = live;
  deps_.op->StartProcessingTime(now);
  if (deps_.progress) timers_.Set(LoopTimers::kProgress, now, kProgressEvery);
  if (deps_.checkpointer != nullptr) {
    deps_.checkpointer->Start();
    timers_.Set(LoopTimers::kCheckpoint, now, deps_.checkpoint_interval);
  }
  // Files that are not followed are read as fast as they go: no deadline for them.
  if (live) timers_.Set(LoopTimers::kFlush, now, kFlushDeadline);
}

bool LoopTick::any() const { return timers_.any() || deps_.op->processing_timers() > 0; }

uint64_t LoopTick::Decided() const {
  const EngineStats& s = *deps_.stats;
  return s.windows_emitted + s.late_events + s.partly_late_events + s.bad_lines;
}

bool LoopTick::Tick(Nanos now, bool waiting, ParsePool* pool, int waiting_on,
                    const std::vector<bool>& done) {
  bool wait = true;
  if (waiting) {
    wait = deps_.idle->WhileWaiting(pool, waiting_on, done, now);
    FlushWhileWaiting(now);
  }
  if (deps_.op->processing_timers() > 0) timers_.Set(LoopTimers::kWindows, now, 0);
  // The jobs due now run once each; one that sets its timer due again runs at the next tick.
  std::array<LoopTimers::Job, LoopTimers::kJobs> due;
  size_t n = 0;
  for (LoopTimers::Job j; n < due.size() && timers_.PopDue(now, &j);) due[n++] = j;
  for (size_t i = 0; i < n; ++i) Run(due[i], now);
  // What a job decided (an --early-every firing) goes out now too, not a wait later.
  if (waiting) FlushWhileWaiting(now);
  return wait;
}

bool LoopTick::Tick(bool waiting, ParsePool* pool, int waiting_on, const std::vector<bool>& done) {
  return Tick(deps_.clock->Now(), waiting, pool, waiting_on, done);
}

void LoopTick::WaitForAny(ParsePool* pool, const std::vector<bool>& done,
                          const volatile int* stop) {
  while (*stop == 0 && status_.ok()) {
    if (deps_.idle->Rejoin(pool, deps_.clock->Now())) return;
    Tick(true, pool, -1, done);
    if (deps_.idle->Rejoin(pool, deps_.clock->Now())) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void LoopTick::FlushWhileWaiting(Nanos now) {
  if (Decided() == flushed_) return;
  flushed_ = Decided();
  if (output_thread_ != nullptr) output_thread_->Drain();
  if (apply_ != nullptr) apply_->Drain();
  Status s = deps_.outputs->Sync(false);
  if (!s.ok() && status_.ok()) status_ = s;
  if (live_) timers_.Set(LoopTimers::kFlush, now, kFlushDeadline);
}

void LoopTick::Run(LoopTimers::Job job, Nanos now) {
  switch (job) {
    case LoopTimers::kWindows: {
      const uint64_t written = deps_.stats->windows_emitted;
      if (!deps_.op->OnProcessingTime(now)) break;
      // --early-every under --state: the records of a firing are committed by a checkpoint
      // at once (one per firing, so at most one per interval), so a resumed run never decides
      // them again: what the clock decided stays decided.
      if (deps_.checkpointer != nullptr && deps_.stats->windows_emitted != written &&
          status_.ok()) {
        Status s = deps_.checkpointer->Take(false);
        if (!s.ok()) status_ = s;
      }
      break;
    }
    case LoopTimers::kFlush:
      // Due again at the next tick until there is something to flush.
      if (Decided() == flushed_) {
        timers_.Set(job, now, 0);
        return;
      }
      flushed_ = Decided();
      if (output_thread_ != nullptr) {
        output_thread_->FlushSoon();
      } else {
        if (apply_ != nullptr) apply_->Drain();
        (void)deps_.outputs->results().Flush();  // errors stay in the file's status, for Sync
      }
      (void)deps_.outputs->late().Flush();
      (void)deps_.outputs->errors().Flush();
      timers_.Set(job, now, kFlushDeadline);
      break;
    case LoopTimers::kCheckpoint:
      if (status_.ok()) {
        Status s = deps_.checkpointer->OnTimer(now);
        if (!s.ok()) status_ = s;
      }
      // Next when the interval since the last checkpoint (of any kind) has passed; at once when
      // it has and no lines came yet (OnTimer took no checkpoint without them).
      timers_.Set(job, now, deps_.checkpointer->UntilDue(now));
      break;
    case LoopTimers::kProgress:
      deps_.progress();
      timers_.Set(job, now, kProgressEvery);
      break;
    case LoopTimers::kJobs:
      break;
  }
}

}  // namespace logtide
