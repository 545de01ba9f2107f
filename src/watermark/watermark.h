// Watermark tracking: the largest event time read from each input and the watermark they
// allow, W = min over unfinished inputs of (max event time - delay), never decreasing.
// An input that has read no event yet holds W at -infinity; when every input is finished,
// W is +infinity, except under --hold (set_hold), where the stream goes on in later runs: W is
// then at most the largest event time read from any input minus the delay. An idle input
// (watermark/idleness.h) holds nothing back either, but while every unfinished input is idle
// the watermark moves only by Raise (wall-clock progress), never to +infinity.
// The watermark is checkpointed (section "watermark"); the inputs' largest
// event times are saved with their positions (input/input_set.h), as inputs may come in
// another order in the next run.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "state/checkpoint.h"
#include "time/timestamp.h"
#include "util/bytes.h"
#include "util/time_math.h"

namespace logtide {

class WatermarkTracker final : public CheckpointComponent {
 public:
  WatermarkTracker(int inputs, Nanos delay)
      : max_(inputs, kMinusInfinity), finished_(inputs, false), idle_(inputs, false), delay_(delay) {}

  // Records an event time read from `input`.
  void Observe(int input, Nanos t) {
    if (t > max_[input]) max_[input] = t;
  }
  // Marks `input` as at its end: it no longer holds the watermark back.
  void Finish(int input) { finished_[input] = true; }
  // An idle input stops holding the watermark back until SetIdle(input, false).
  void SetIdle(int input, bool idle) { idle_[input] = idle; }
  int inputs() const { return static_cast<int>(max_.size()); }
  bool idle(int input) const { return idle_[input]; }
  bool finished(int input) const { return finished_[input]; }
  // Whether every unfinished input is idle, and one is.
  bool AllIdle() const {
    bool any = false;
    for (size_t i = 0; i < max_.size(); ++i) {
      if (finished_[i]) continue;
      if (!idle_[i]) return false;
      any = true;
    }
    return any;
  }
  // The largest event time read from any input, minus the delay.
  Nanos top() const {
    Nanos top = kMinusInfinity;
    for (Nanos m : max_) top = std::max(top, SatSub(m, delay_));
    return top;
  }
  // Moves the watermark up to `w` (wall-clock progress); returns the watermark.
  Nanos Raise(Nanos w) {
    if (w > current_) current_ = w;
    return current_;
  }
  // Under --hold, finished inputs (rotated files) are not the end of the stream.
  void set_hold(bool hold) { hold_ = hold; }

  Nanos max_time(int input) const { return max_[input]; }

  // Recomputes and returns the watermark.
  Nanos Update() {
    Nanos w = kPlusInfinity;
    bool idle = false;
    for (size_t i = 0; i < max_.size(); ++i) {
      if (finished_[i]) continue;
      if (idle_[i]) {
        idle = true;
        continue;
      }
      w = std::min(w, SatSub(max_[i], delay_));
    }
    if (w == kPlusInfinity && idle) {
      w = current_;
    } else if (hold_ && w == kPlusInfinity) {
      // A live log may not exist yet between a rotation and its writer's first line: the
      // rotated files' ends are not the stream's.
      w = top();
    }
    if (w > current_) current_ = w;
    return current_;
  }
  Nanos current() const { return current_; }

  // Section "watermark", version 1: i64 the watermark. Once restored it only grows from there.
  std::string_view section() const override { return "watermark"; }
  uint32_t version() const override { return 1; }
  Status Save(std::string* data) override {
    ByteWriter(data).I64(current_);
    return Status::Ok();
  }
  Status Load(std::string_view data, uint32_t) override {
    ByteReader r(data);
    current_ = r.I64();
    if (!r.ok() || !r.at_end()) return Status::Corruption("it does not decode");
    return Status::Ok();
  }

 private:
  std::vector<Nanos> max_;
  std::vector<bool> finished_;
  std::vector<bool> idle_;
  Nanos delay_;
  bool hold_ = false;
  Nanos current_ = kMinusInfinity;
};

}  // namespace logtide
