// Event-time timers: (time, window, key) entries popped in one fixed total order once the
// watermark reaches their time, so firing never depends on hash order.
#pragma once

#include <algorithm>
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

class TimerQueue {
 public:
  void Push(const Timer& t) {
    heap_.push_back(t);
    std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
  }
  // Pops the earliest timer with time <= watermark into *out. Returns false when none is due.
  bool PopDue(Nanos watermark, Timer* out) {
    if (heap_.empty() || heap_.front().time > watermark) return false;
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    *out = heap_.back();
    heap_.pop_back();
    return true;
  }
  size_t size() const { return heap_.size(); }

 private:
  std::vector<Timer> heap_;
};

}  // namespace logtide
