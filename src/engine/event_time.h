// Event time as the read loop moves it: the watermark tracker's per-input maxima, idle and
// finished inputs, and the window operator, told of every rise of the watermark (its
// OnWatermark fires what the watermark passed). The loop and the idle-input policy
// (engine/idle_inputs.h) both move event time through this one place.
#pragma once

#include <vector>

#include "apply/parallel_apply.h"
#include "time/timestamp.h"
#include "watermark/watermark.h"
#include "window/window_operator.h"

namespace logtide {

class EventTime {
 public:
  // REQUIRES: both outlive this.
  EventTime(WatermarkTracker* tracker, WindowOperator* op) : tracker_(tracker), op_(op) {}
  // With parallel apply, every rise goes to its workers too (`op` then holds no keys: it
  // answers WindowOperator::PredictAdd). REQUIRES: `apply` outlives its use here, or is reset
  // to nullptr first.
  void set_parallel(ParallelApply* apply) { apply_ = apply; }

  Nanos watermark() const { return watermark_; }
  const WatermarkTracker& tracker() const { return *tracker_; }

  // Input `input` had an event (or a line --where rejected) at `t`.
  void Observe(int input, Nanos t) {
    tracker_->Observe(input, t);
    Advance(tracker_->Update());
  }
  // Input `input` stops holding the watermark back (it went idle).
  void SetIdle(int input) {
    tracker_->SetIdle(input, true);
    Advance(tracker_->Update());
  }
  // Input `input` holds the watermark back again; its events behind the watermark are late.
  void Rejoin(int input) { tracker_->SetIdle(input, false); }
  // Input `input` ended: it holds nothing back.
  void Finish(int input) {
    tracker_->Finish(input);
    tracker_->SetIdle(input, false);
    Advance(tracker_->Update());
  }
  // The watermark is at least `w` (event time moving with the wall clock while all are idle).
  void RaiseTo(Nanos w) { Advance(tracker_->Raise(w)); }
  // Watermark alignment: the input to read next, of those not `done`: the one with the lowest
  // maximum event time so far (ties go to the earlier input), idle inputs only when one input
  // is left. -1 when several are left and all are idle: the loop waits for any of them.
  int PickInput(const std::vector<bool>& done) const {
    int pick = -1, last = -1, unfinished = 0;
    for (int i = 0; i < static_cast<int>(done.size()); ++i) {
      if (done[i]) continue;
      ++unfinished;
      last = i;
      if (tracker_->idle(i)) continue;
      if (pick < 0 || tracker_->max_time(i) < tracker_->max_time(pick)) pick = i;
    }
    return pick >= 0 || unfinished != 1 ? pick : last;
  }
  // A resumed run: the watermark the restored tracker holds.
  void Restored() { watermark_ = tracker_->current(); }

 private:
  void Advance(Nanos w) {
    if (w > watermark_) {
      watermark_ = w;
      op_->OnWatermark(w);
      if (apply_ != nullptr) apply_->Rise(w);
    }
  }

  WatermarkTracker* tracker_;
  WindowOperator* op_;
  ParallelApply* apply_ = nullptr;
  Nanos watermark_ = kMinusInfinity;
};

}  // namespace logtide
