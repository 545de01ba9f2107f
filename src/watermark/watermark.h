// Watermark tracking: the largest event time read from each input and the watermark they
// allow, W = min over unfinished inputs of (max event time - delay), never decreasing.
// An input that has read no event yet holds W at -infinity; when every input is finished,
// W is +infinity, except under --hold (set_hold), where the stream goes on in later runs: W is
// then at most the largest event time read from any input minus the delay. An idle input
// (watermark/idleness.h) holds nothing back either, but while every unfinished input is idle
// the watermark moves only by Raise (wall-clock progress), never to +infinity.
// The watermark and each input's largest event time are checkpointed (section "watermark"),
// the times by the ids the inputs' component gives the inputs (state/checkpoint.h InputIds),
// as inputs may come in another order, or under other names, in the next run.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "state/checkpoint.h"
#include "util/state_codec.h"
#include "time/timestamp.h"
#include "util/bytes.h"
#include "util/time_math.h"

namespace logtide {

// Decodes the inputs' largest event times from a "watermark" section of version 2 (for
// `logtide inspect`). False when it is damaged.
bool DecodeWatermarkTimes(std::string_view data, std::vector<std::pair<uint64_t, int64_t>>* out);

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

  // Where the inputs' ids come from. REQUIRES: before Save or Load; Load after the inputs'.
  void set_input_ids(const InputIds* ids) { ids_ = ids; }

  // Section "watermark", version 2: i64 the watermark, u32 inputs, per input saved (in the
  // inputs' order): u64 its id, i64 its largest event time. Version 1 had the watermark
  // alone, the times being in the inputs' section (InputIds::LegacyTimes). Once restored the
  // watermark only grows from there.
  std::string_view section() const override { return "watermark"; }
  static constexpr uint32_t kVersion = 2;
  uint32_t version() const override { return kVersion; }
  bool Reads(uint32_t version) const override { return version == 1 || version == 2; }
  Status Save(std::string* data) override;
  // Describes the form Save writes, field by field (util/state_codec.h), for savepoints.
  static void DescribeSection(StateCodec* c);
  Status Load(std::string_view data, uint32_t version) override;

 private:
  // The largest event time an earlier run saved for the input `id` (kMinusInfinity: none).
  Nanos RestoredMax(uint64_t id) const;

  const InputIds* ids_ = nullptr;
  std::vector<std::pair<uint64_t, Nanos>> restored_;  // by id, from a version 2 section
  std::vector<Nanos> max_;
  std::vector<bool> finished_;
  std::vector<bool> idle_;
  Nanos delay_;
  bool hold_ = false;
  Nanos current_ = kMinusInfinity;
};

}  // namespace logtide
