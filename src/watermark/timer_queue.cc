#include "watermark/timer_queue.h"

#include <algorithm>
#include <functional>

#include "util/time_math.h"

namespace logtide {

void TimerQueue::Push(const Timer& t) {
  ++size_;
  due_from_ = std::min(due_from_, t.time);
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

bool TimerQueue::PopDueFromBuckets(Nanos watermark, Timer* out) {
  if (ready_.empty()) {
    // The next bucket may hold a due timer only if it starts at or before the watermark.
    if (later_.empty()) {
      due_from_ = kPlusInfinity;
      return false;
    }
    if (later_.begin()->first > FloorDiv(watermark, width_)) {
      const __int128 bucket_start = static_cast<__int128>(later_.begin()->first) * width_;
      due_from_ = bucket_start < INT64_MIN ? INT64_MIN : static_cast<Nanos>(bucket_start);
      return false;
    }
    auto it = later_.begin();
    ready_.swap(it->second);
    std::make_heap(ready_.begin(), ready_.end(), std::greater<>());
    ready_bucket_ = it->first;
    spare_.push_back(std::move(it->second));  // the ready vector's old buffer, empty
    later_.erase(it);
  }
  if (ready_.front().time > watermark) {
    due_from_ = ready_.front().time;
    return false;
  }
  std::pop_heap(ready_.begin(), ready_.end(), std::greater<>());
  *out = ready_.back();
  ready_.pop_back();
  --size_;
  return true;
}

}  // namespace logtide
