#include "engine/idle_inputs.h"

#include "engine/parse_pool.h"

namespace logtide {

bool IdleInputs::Rejoin(ParsePool* pool, Nanos now) {
  bool any = false;
  const WatermarkTracker& tracker = time_->tracker();
  for (int k = 0; k < tracker.inputs(); ++k) {
    if (tracker.idle(k) && pool->Ready(k)) {
      time_->Rejoin(k);
      idleness_->LineRead(k, now);  // not idle again before its timeout
      any = true;
    }
  }
  return any;
}

bool IdleInputs::WhileWaiting(ParsePool* pool, int waiting_on, const std::vector<bool>& done,
                              Nanos now) {
  if (!enabled()) return true;
  const WatermarkTracker& tracker = time_->tracker();
  idleness_->Settle(now);
  if (waiting_on >= 0 && !tracker.idle(waiting_on) && idleness_->IdleAt(waiting_on, now))
    time_->SetIdle(waiting_on);
  WallClockProgress(now);
  // Another input may be read meanwhile: the idle one is looked at again between lines.
  if (waiting_on < 0 || done.size() < 2) return true;
  bool others = false;
  for (size_t i = 0; i < done.size(); ++i)
    others = others || (static_cast<int>(i) != waiting_on && !done[i]);
  if (!others) return true;
  if (tracker.idle(waiting_on)) return false;
  for (int k = 0; k < tracker.inputs(); ++k) {
    if (tracker.idle(k) && pool->Ready(k)) return false;
  }
  return true;
}

void IdleInputs::AtHoldEnd(Nanos now) {
  if (!enabled()) return;
  const WatermarkTracker& tracker = time_->tracker();
  idleness_->Settle(now);
  for (int k = 0; k < tracker.inputs(); ++k) {
    if (!tracker.finished(k) && !tracker.idle(k) && idleness_->IdleAt(k, now)) time_->SetIdle(k);
  }
  WallClockProgress(now);
}

void IdleInputs::WallClockProgress(Nanos now) {
  const WatermarkTracker& tracker = time_->tracker();
  if (!tracker.AllIdle()) return;
  time_->RaiseTo(idleness_->WallClockWatermark(tracker.top(), now));
}

}  // namespace logtide
