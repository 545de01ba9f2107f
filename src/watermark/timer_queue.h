// Event-time timers: (time, window, key) entries popped in one fixed total order once the
// watermark reaches their time, so firing never depends on hash order.
#pragma once

#include <absl/container/btree_map.h>

#include <cstdint>
#include <tuple>
#include <vector>

#include "time/timestamp.h"

namespace logtide {

struct Timer {
  enum Kind : uint8_t { kFire = 0, kCleanup = 1 };
  Nanos time;
  Nanos end;
  Nanos start;
  uint32_t key;
  Kind kind;

  auto tie() const { return std::tie(time, end, start, key, kind); }
  bool operator>(const Timer& o) const { return tie() > o.tie(); }
};

// Timers are kept in buckets of `width` nanoseconds of time, unsorted, and a bucket is put in
// order (a binary heap) only once the watermark reaches it. With many timers in flight the
// heap then holds one bucket's worth, not all of them: pushing costs an append, and popping a
// few steps in a heap that stays in cache.
class TimerQueue {
 public:
  // REQUIRES: width > 0.
  explicit TimerQueue(Nanos width = 1) : width_(width) {}

  void Push(const Timer& t);
  // Pops the earliest timer with time <= watermark into *out. Returns false when none is due.
  bool PopDue(Nanos watermark, Timer* out);
  size_t size() const { return size_; }

 private:
  Nanos width_;
  // Every timer in a bucket up to ready_bucket_, as a min-heap; later buckets' timers are all
  // later than these.
  std::vector<Timer> ready_;
  int64_t ready_bucket_ = INT64_MIN;
  absl::btree_map<int64_t, std::vector<Timer>> later_;  // bucket -> its timers, unsorted
  std::vector<std::vector<Timer>> spare_;               // emptied buckets' vectors, for reuse
  size_t size_ = 0;
};

}  // namespace logtide
