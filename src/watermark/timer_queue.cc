#include "watermark/timer_queue.h"

#include <algorithm>
#include <functional>

#include "util/time_math.h"

namespace logtide {

void TimerQueue::Push(const Timer& t) {
  ++size_;
  const int64_t bucket = FloorDiv(t.time, width_);
  if (bucket <= ready_bucket_) {
    ready_.push_back(t);
    std::push_heap(ready_.begin(), ready_.end(), std::greater<>());
    return;
  }
  auto [it, inserted] = later_.try_emplace(bucket);
  if (inserted && !spare_.empty()) {
    it->second.swap(spare_.back());
    spare_.pop_back();
  }
  it->second.push_back(t);
}

bool TimerQueue::PopDue(Nanos watermark, Timer* out) {
  if (ready_.empty()) {
    // The next bucket may hold a due timer only if it starts at or before the watermark.
    if (later_.empty() || later_.begin()->first > FloorDiv(watermark, width_)) return false;
    auto it = later_.begin();
    ready_.swap(it->second);
    std::make_heap(ready_.begin(), ready_.end(), std::greater<>());
    ready_bucket_ = it->first;
    spare_.push_back(std::move(it->second));  // the ready vector's old buffer, empty
    later_.erase(it);
  }
  if (ready_.front().time > watermark) return false;
  std::pop_heap(ready_.begin(), ready_.end(), std::greater<>());
  *out = ready_.back();
  ready_.pop_back();
  --size_;
  return true;
}

}  // namespace logtide
