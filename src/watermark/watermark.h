// Watermark tracking: the largest event time read from each input and the watermark they
// allow, W = min over unfinished inputs of (max event time - delay), never decreasing.
// An input that has read no event yet holds W at -infinity; when every input is finished,
// W is +infinity.
#pragma once

#include <vector>

#include "time/timestamp.h"
#include "util/time_math.h"

namespace logtide {

class WatermarkTracker {
 public:
  WatermarkTracker(int inputs, Nanos delay)
      : max_(inputs, kMinusInfinity), finished_(inputs, false), delay_(delay) {}

  // Records an event time read from `input`.
  void Observe(int input, Nanos t) {
    if (t > max_[input]) max_[input] = t;
  }
  // Marks `input` as at its end: it no longer holds the watermark back.
  void Finish(int input) { finished_[input] = true; }

  Nanos max_time(int input) const { return max_[input]; }

  // Recomputes and returns the watermark.
  Nanos Update() {
    Nanos w = kPlusInfinity;
    for (size_t i = 0; i < max_.size(); ++i) {
      if (finished_[i]) continue;
      Nanos wi = SatSub(max_[i], delay_);
      if (wi < w) w = wi;
    }
    if (w > current_) current_ = w;
    return current_;
  }
  Nanos current() const { return current_; }
  // Sets the watermark restored from a checkpoint; it only grows from there.
  void Restore(Nanos w) { current_ = w; }

 private:
  std::vector<Nanos> max_;
  std::vector<bool> finished_;
  Nanos delay_;
  Nanos current_ = kMinusInfinity;
};

}  // namespace logtide
