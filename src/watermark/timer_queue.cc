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
    added_.push_back(t);
    std::push_heap(added_.begin(), added_.end(), std::greater<>());
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
  if (ready_.empty() && added_.empty()) {
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
    // Latest first: the earliest is popped from the back.
    std::sort(ready_.begin(), ready_.end(), std::greater<>());
    ready_bucket_ = it->first;
    spare_.push_back(std::move(it->second));  // the ready vector's old buffer, empty
    later_.erase(it);
  }
  // The earlier of the bucket's next and the earliest added to it since.
  const bool from_added =
      ready_.empty() || (!added_.empty() && ready_.back() > added_.front());
  const Timer& next = from_added ? added_.front() : ready_.back();
  if (next.time > watermark) {
    due_from_ = next.time;
    return false;
  }
  if (from_added) {
    std::pop_heap(added_.begin(), added_.end(), std::greater<>());
    *out = added_.back();
    added_.pop_back();
  } else {
    *out = ready_.back();
    ready_.pop_back();
  }
  --size_;
  return true;
}

}  // namespace logtide
