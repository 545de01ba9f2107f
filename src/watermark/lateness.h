// How late the late events of a run were: how far behind the watermark each one came (the
// watermark minus its event time), summed up for the warning that says what --delay would
// have kept them. Bounded memory: a log-linear histogram (16 steps per power of two, so the
// median is known within 1/32 of its value) and the exact minimum and maximum.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

#include "time/timestamp.h"

namespace logtide {

class LatenessSummary {
 public:
  void Add(Nanos behind) {
    if (behind < 0) behind = 0;
    if (count_++ == 0 || behind < min_) min_ = behind;
    if (behind > max_) max_ = behind;
    ++buckets_[Bucket(static_cast<uint64_t>(behind))];
  }
  uint64_t count() const { return count_; }
  Nanos max() const { return max_; }
  // The median, within 1/32 of its value: the middle of its bucket, kept within the smallest
  // and largest values added (0 when there are none).
  Nanos Median() const {
    uint64_t seen = 0;
    for (size_t b = 0; b < buckets_.size(); ++b) {
      seen += buckets_[b];
      if (2 * seen >= count_ && count_ > 0) {
        const uint64_t lo = Lower(b), hi = b + 1 < buckets_.size() ? Lower(b + 1) : lo;
        const Nanos mid = static_cast<Nanos>(lo + (hi - lo) / 2);
        return std::clamp(mid, min_, max_);
      }
    }
    return 0;
  }

 private:
  static constexpr int kSteps = 16;  // per power of two
  // Values below kSteps have a bucket each; above, the power of two and the next 4 bits.
  static size_t Bucket(uint64_t v) {
    if (v < kSteps) return static_cast<size_t>(v);
    const int top = 63 - std::countl_zero(v);  // >= 4
    const uint64_t step = (v >> (top - 4)) & (kSteps - 1);
    return static_cast<size_t>((top - 3) * kSteps + step);
  }
  static uint64_t Lower(size_t b) {
    if (b < kSteps) return b;
    const int top = static_cast<int>(b / kSteps) + 3;
    return (uint64_t{1} << top) | (static_cast<uint64_t>(b % kSteps) << (top - 4));
  }
  std::array<uint64_t, 61 * kSteps> buckets_{};
  uint64_t count_ = 0;
  Nanos min_ = 0, max_ = 0;
};

}  // namespace logtide
