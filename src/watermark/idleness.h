// Idle inputs (--idle-timeout): per input, the wall-clock time since which it has produced no
// line. An input waited on (a quiet pipe, a followed file at its end, a file at its end under
// --hold) that has been quiet for the timeout is idle: it stops holding the watermark back
// until it produces a line again. When every input that holds the watermark is idle, event
// time goes on at wall-clock speed from the last line read (WallClockWatermark). Times come
// from a Clock (time/clock.h); this class never reads one. The quiet-since times are saved
// (section "idleness", by the inputs' ids: state/checkpoint.h InputIds), so idleness carries
// across runs.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "state/checkpoint.h"
#include "util/state_codec.h"
#include "time/timestamp.h"
#include "util/time_math.h"

namespace logtide {

class Idleness final : public CheckpointComponent {
 public:
  // `timeout` 0: no input is ever idle. Every input counts as quiet since `start`.
  Idleness(int inputs, Nanos timeout, Nanos start)
      : since_(inputs, start), touched_(inputs, 0), timeout_(timeout), start_(start) {}

  bool enabled() const { return timeout_ > 0; }
  Nanos timeout() const { return timeout_; }

  // Input i produced a line at `now`.
  void LineRead(int input, Nanos now) { since_[input] = now; }
  // Input i produced a line, at a time taken later by Settle (the clock is not read per line;
  // Settle runs whenever an input is waited on, so the time is late by at most that wait).
  void Touch(int input) { touched_[input] = 1; }
  void Settle(Nanos now) {
    for (size_t i = 0; i < since_.size(); ++i) {
      if (touched_[i]) since_[i] = now;
      touched_[i] = 0;
    }
  }
  Nanos quiet_since(int input) const { return since_[input]; }

  // Whether input i, waited on at `now`, is idle.
  bool IdleAt(int input, Nanos now) const {
    return enabled() && SatSub(now, since_[input]) >= timeout_;
  }

  // The watermark while every input is idle: `top` (the largest event time read, minus the
  // delay) plus the wall time since the last line of any input (or since an input that never
  // had one was first read, whichever is later: never early). Infinite when `top` is.
  Nanos WallClockWatermark(Nanos top, Nanos now) const {
    if (top == kMinusInfinity || top == kPlusInfinity) return top;
    Nanos last = kMinusInfinity;
    for (Nanos s : since_) last = std::max(last, s);
    return SatAdd(top, std::max<Nanos>(0, SatSub(now, last)));
  }

  // Where the inputs' ids come from. REQUIRES: before Save or Load; Load after the inputs'.
  void set_input_ids(const InputIds* ids) { ids_ = ids; }

  // Section "idleness", version 1: u32 inputs, per input saved (in the inputs' order): u64
  // its id, i64 since when it produced no line (INT64_MIN: not known). A state from before
  // the section has the times in its inputs' section (InputIds::LegacyTimes). A restored time
  // in the future (the clock was set back) counts from the start of this run.
  std::string_view section() const override { return "idleness"; }
  static constexpr uint32_t kVersion = 1;
  uint32_t version() const override { return kVersion; }
  bool ReadsAbsent() const override { return true; }
  Status Save(std::string* data) override;
  // Describes the form Save writes, field by field (util/state_codec.h), for savepoints.
  static void DescribeSection(StateCodec* c);
  Status Load(std::string_view data, uint32_t version) override;

 private:
  // The quiet-since time an earlier run saved for the input `id` (INT64_MIN: none).
  Nanos RestoredSince(uint64_t id) const;

  std::vector<Nanos> since_;
  std::vector<char> touched_;
  Nanos timeout_;
  Nanos start_;
  const InputIds* ids_ = nullptr;
  std::vector<std::pair<uint64_t, Nanos>> restored_;  // by id, from the section
  bool legacy_ = false;                               // restored from the inputs' section
};

}  // namespace logtide
