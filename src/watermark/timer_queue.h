// Timers: (time, window, key) entries popped in one fixed total order once their clock reaches
// their time, so firing never depends on hash order. TimerService keeps an operator's timers in
// the two time domains (Flink's InternalTimerService).
#pragma once

#include <absl/container/btree_map.h>

#include <cstdint>
#include <tuple>
#include <vector>

#include "time/timestamp.h"
#include "util/time_math.h"

namespace logtide {

struct Timer {
  // What the owner does when the timer goes off: emit a window, drop state, forget a
  // window's revision count, emit a window's early records (--early), or write the closing
  // records of a window. The order of kinds breaks ties between otherwise equal timers.
  enum Kind : uint8_t { kFire = 0, kCleanup = 1, kExpire = 2, kEarly = 3, kClose = 4 };
  Nanos time;
  Nanos end;
  Nanos start;
  uint32_t key;
  Kind kind;

  auto tie() const { return std::tie(time, end, start, key, kind); }
  bool operator>(const Timer& o) const { return tie() > o.tie(); }
};

// Timers are kept in buckets of `width` nanoseconds of time, unsorted, and a bucket is sorted
// only once the watermark reaches it. With many timers in flight only one bucket's worth is in
// order, not all of them: pushing costs an append, and popping the next of a sorted bucket
// costs a step (a timer pushed into the bucket being popped goes to a small heap beside it).
class TimerQueue {
 public:
  // REQUIRES: width > 0.
  explicit TimerQueue(Nanos width = 1) : width_(width) {}

  void Push(const Timer& t);
  // Pops the earliest timer with time <= watermark into *out. Returns false when none is due.
  bool PopDue(Nanos watermark, Timer* out) {
    return watermark >= due_from_ && PopDueFromBuckets(watermark, out);
  }
  size_t size() const { return size_; }
  // Calls f(timer) for every timer, in no order.
  template <class F>
  void ForEach(F&& f) const {
    for (const Timer& t : ready_) f(t);
    for (const Timer& t : added_) f(t);
    for (const auto& [bucket, timers] : later_) {
      for (const Timer& t : timers) f(t);
    }
  }

 private:
  bool PopDueFromBuckets(Nanos watermark, Timer* out);

  Nanos width_;
  // Every timer in a bucket up to ready_bucket_: the ready bucket's, sorted latest first
  // (popped from the back), and those pushed since into it or an earlier bucket, a min-heap.
  // Later buckets' timers are all later than these.
  std::vector<Timer> ready_;
  std::vector<Timer> added_;
  int64_t ready_bucket_ = INT64_MIN;
  absl::btree_map<int64_t, std::vector<Timer>> later_;  // bucket -> its timers, unsorted
  std::vector<std::vector<Timer>> spare_;               // emptied buckets' vectors, for reuse
  size_t size_ = 0;
  // No timer is due at a watermark below this (a lower bound of the earliest time): the common
  // call, a watermark that passes no timer, is one comparison.
  Nanos due_from_ = kPlusInfinity;
};

enum class TimeDomain { kEventTime, kProcessingTime };

// One operator's timers: event-time timers are due once the watermark reaches their time,
// processing-time timers once the wall clock does (nanoseconds since the epoch). Each domain
// pops in Timer's total order.
class TimerService {
 public:
  // REQUIRES: event_bucket > 0 (see TimerQueue).
  explicit TimerService(Nanos event_bucket)
      : event_(event_bucket), processing_(kProcessingBucket) {}

  void Set(TimeDomain d, const Timer& t) { queue(d).Push(t); }
  // Pops the earliest timer of domain `d` with time <= now into *out; false when none is due.
  bool PopDue(TimeDomain d, Nanos now, Timer* out) { return queue(d).PopDue(now, out); }
  size_t size(TimeDomain d) const {
    return d == TimeDomain::kEventTime ? event_.size() : processing_.size();
  }
  // Calls f(timer) for every timer of domain `d`, in no order.
  template <class F>
  void ForEach(TimeDomain d, F&& f) const {
    (d == TimeDomain::kEventTime ? event_ : processing_).ForEach(f);
  }

 private:
  static constexpr Nanos kProcessingBucket = 100'000'000;  // 100 ms of wall time
  TimerQueue& queue(TimeDomain d) { return d == TimeDomain::kEventTime ? event_ : processing_; }
  TimerQueue event_;
  TimerQueue processing_;
};

}  // namespace logtide
