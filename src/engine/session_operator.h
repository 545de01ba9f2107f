// Session windows: per key, the open sessions sorted by start. An event at t is the window
// [t, t + gap); it merges with every session it overlaps or touches, and the merged session
// keeps one accumulator slot (Flink's MergingWindowSet). Timers fire sessions in a fixed order.
#pragma once

#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/inlined_vector.h>

#include "engine/window_operator.h"
#include "watermark/timer_queue.h"

namespace logtide {

class SessionOperator final : public WindowOperator {
 public:
  SessionOperator(const WindowSpec& spec, Nanos lateness, EmitMode mode, Deps deps);
  ~SessionOperator() override;

  bool Add(uint32_t key, Nanos t, const ValueRef* inputs, uint64_t seq, Nanos watermark,
           uint64_t* wrong_type) override;
  void AdvanceWatermark(Nanos w) override;
  void Snapshot(ByteWriter* w) const override;
  bool Restore(ByteReader* r, Nanos watermark) override;
  size_t open_entries() const override { return open_; }

 private:
  struct Session {
    Nanos start;
    Nanos end;
    uint32_t slot;
    int64_t last_revision;  // -1 until the session is first emitted (update mode)
  };
  using SessionList = absl::InlinedVector<Session, 2>;

  Session* Find(uint32_t key, Nanos start, Nanos end);
  void Remove(uint32_t key, Nanos start, Nanos end);

  Nanos gap_;
  absl::flat_hash_map<uint32_t, SessionList> sessions_;
  TimerQueue timers_;
  size_t open_ = 0;
  std::vector<WindowResult> results_;
  std::vector<Timer> to_remove_;
};

}  // namespace logtide
