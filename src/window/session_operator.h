// Session windows: per key, the open sessions sorted by start. An event at t is the window
// [t, t + gap); it merges with every session it overlaps or touches, and the merged session
// keeps one accumulator slot (Flink's MergingWindowSet). Timers fire sessions in a fixed order;
// in final mode a session has one timer at a time, set again when it goes off early. In
// update mode each change sets a timer naming the session's (start, end): a fire timer while
// the session is not yet complete, a cleanup timer at its CleanupTime once it is.
// With --early a session has an early timer at its next start + k*early (from its start as it
// is then), found by its start and the time it was set for (next_early): a timer of a session
// whose start moved, or set again, is stale and does nothing. With revisions, a stop or an
// --early-every firing (EmitOpen) writes the open sessions that changed since their last
// record.
#pragma once

#include <absl/container/inlined_vector.h>

#include <vector>

#include "window/window_operator.h"

namespace logtide {

class SessionOperator final : public WindowOperator {
 public:
  // The forms of a row's key and value (window_operator.h DescribeWindowRowKey).
  static void DescribeRowKey(StateCodec* c) { c->Key("key"); }
  static void DescribeRowValue(const WindowRowForm& form, StateCodec* c);
  SessionOperator(const WindowSpec& spec, Nanos lateness, EmitMode mode, Nanos early, Deps deps);
  ~SessionOperator() override;

  AddResult Add(const KeyedEvent& e) override;
  bool PredictAdd(Nanos t, AddResult* out) override;
  void EmitOpen() override;
  size_t open_entries() const override { return open_; }
  size_t recorded_changes() const override { return dirty_list_.size() + erased_.size(); }

 protected:
  void SnapshotRows(std::vector<StateOp>* ops, bool all) override;
  void SnapshotMeta(const std::vector<WindowOperator*>&, ByteWriter*) const override {}
  bool RowKeyOf(std::string_view row_key, std::string_view* key) const override {
    *key = row_key;
    return true;
  }
  bool RestoreRow(std::string_view row_key, std::string_view value) override;
  bool RestoreMeta(ByteReader*, const KeyShard&) override { return true; }
  // Collects the sessions that fire; AfterTimers emits them together, then drops the ones
  // whose state is done.
  void OnTimer(TimeDomain domain, const Timer& t) override;
  void AfterTimers() override;

 private:
  struct Session {
    Nanos start;
    Nanos end;
    uint32_t slot;
    int64_t last_revision;  // -1 until the session is first emitted (update mode, --early)
    bool changed;           // since its last record (update mode, --early)
    Nanos next_early;       // the time of its early timer (--early)
  };
  using SessionList = absl::InlinedVector<Session, 2>;

  // The key's session starting at `start` (a key's sessions are disjoint: no two share a
  // start), or nullptr; Find also requires its end.
  Session* FindStart(uint32_t key, Nanos start);
  Session* Find(uint32_t key, Nanos start, Nanos end);
  void Remove(uint32_t key, Nanos start, Nanos end);
  // Sets the early timer of `s` (of `key`) at its next early time, if that comes before its
  // end and is not the one set. REQUIRES: early_ > 0.
  void SetEarlyTimer(uint32_t key, Session* s);

  Nanos gap_;
  // By key id (ids are dense: KeyTable recycles them); a key with no session has an empty
  // list. One indexed load finds a key's sessions, where a hash map took two.
  std::vector<SessionList> sessions_;
  size_t open_ = 0;
  std::vector<WindowResult> results_;
  std::vector<Nanos> due_;  // per result, when it became due
  std::vector<uint32_t> order_;
  std::vector<Timer> to_remove_;

  // Changes since the last checkpoint: keys whose sessions changed, keys with none left.
  void MarkDirty(uint32_t key) {
    if (!track_changes_) return;
    if (key >= dirty_.size()) dirty_.resize(key + 1024, 0);
    if (dirty_[key] == 0) {
      dirty_[key] = 1;
      dirty_list_.push_back(key);
    }
  }
  std::vector<uint8_t> dirty_;
  std::vector<uint32_t> dirty_list_;
  std::vector<std::string> erased_;
};

}  // namespace logtide
