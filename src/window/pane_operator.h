// Tumbling and sliding windows kept as panes (see window/window_spec.h): each event updates
// exactly one pane's state, and a window's result is the merge of its panes at firing time,
// so a sliding window costs one update per event, not one per window.
//
// Timers: a new pane sets a fire timer for each of its windows not yet due (one per window
// end, shared by the window's panes) and a cleanup timer at the CleanupTime of its last
// window; in update mode with lateness, an emitted (window, key) sets an expire timer at its
// window's CleanupTime, when its revision count is forgotten. At equal times windows fire
// before state is dropped (the cleanup and expire timers carry end = +infinity), except a
// window whose end saturates at +infinity, at the very top of the time range, which sorts
// after them.
//
// With --early, each window has one early timer at a time, at its next start + k*early, set
// again when it goes off; a window's (pane, key) entries remember the watermark when they
// last changed, so an early firing writes only the keys changed since the window's last
// early time. In update mode with lateness, each window has a close timer at its CleanupTime
// (end = the window's end, so it goes off before the panes are dropped) that writes the
// window's closing records. With revisions, a stop or an --early-every firing (EmitOpen)
// writes the windows whose fire timer is set, for the keys changed since their last record,
// and marks every (pane, key) unchanged (kUnchanged).
#pragma once

#include <absl/container/btree_map.h>
#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "window/window_operator.h"

namespace logtide {

class PaneOperator final : public WindowOperator {
 public:
  // The forms of a row's key and value (window_operator.h DescribeWindowRowKey).
  static void DescribeRowKey(StateCodec* c);
  static void DescribeRowValue(const WindowRowForm& form, StateCodec* c);
  // The form of SnapshotMeta's bytes (window_operator.h DescribeSection).
  static void DescribeMeta(StateCodec* c);
  PaneOperator(const WindowSpec& spec, Nanos lateness, EmitMode mode, Nanos early, Deps deps);
  ~PaneOperator() override;

  AddResult Add(const KeyedEvent& e) override;
  bool PredictAdd(Nanos t, AddResult* out) override;
  void EmitOpen() override;
  size_t open_entries() const override { return open_entries_; }
  size_t recorded_changes() const override { return dirty_list_.size() + purged_.size(); }
  void AppendDroppedPanes(std::vector<Nanos>* out) const override {
    out->insert(out->end(), purged_.begin(), purged_.end());
  }

 protected:
  void SnapshotRows(std::vector<StateOp>* ops, bool all) override;
  void SnapshotMeta(const std::vector<WindowOperator*>& shards, ByteWriter* meta) const override;
  bool RowKeyOf(std::string_view row_key, std::string_view* key) const override;
  bool RestoreRow(std::string_view row_key, std::string_view value) override;
  bool RestoreMeta(ByteReader* meta, const KeyShard& shard) override;
  // Every timer but a revision count's expiry is a window's (its key is 0).
  bool IsWindowTimer(const Timer& t) const override { return t.kind != Timer::kExpire; }
  void OnTimer(TimeDomain domain, const Timer& t) override;
  // Calendar windows: one pane is one window.
  void OpenWindows(std::vector<WindowBounds>* out) const override;
  WindowBounds BoundsNow(Nanos start) const override;

 private:
  struct PaneKey {
    Nanos start;
    uint32_t key;
    bool operator==(const PaneKey& o) const { return start == o.start && key == o.key; }
    template <typename H>
    friend H AbslHashValue(H h, const PaneKey& k) {
      return H::combine(std::move(h), k.start, k.key);
    }
  };
  struct Entry {
    uint32_t key;
    uint32_t slot;
  };
  // One pane's state: its keys in arrival order with their slots, and a way to find a key's
  // slot. A key's slot in the pane it was last added to is kept with the key
  // (KeyTable::pane_slot): for a tumbling window, the pane every event goes to. Its slots in
  // its earlier panes, still open when it moved on, are in their `moved` maps. A pane's keys
  // live and are purged together, so they are kept together.
  struct Pane {
    std::vector<Entry> entries;
    absl::flat_hash_map<uint32_t, uint32_t> moved;  // key -> slot, keys last added elsewhere
  };

  // Returns the slot of `key` in pane `p`, or KeyTable::kNoSlot.
  uint32_t FindSlot(const Pane& p, uint32_t key) const {
    if (deps_.keys->pane(key) == &p) return deps_.keys->pane_slot(key);
    if (p.moved.empty()) return KeyTable::kNoSlot;
    auto it = p.moved.find(key);
    return it == p.moved.end() ? KeyTable::kNoSlot : it->second;
  }
  // Adds `key` with state in `slot` to pane `p`, taking a reference to it.
  // REQUIRES: the key has no slot in p.
  void AddEntry(Pane* p, uint32_t key, uint32_t slot);

  // Returns the pane starting at `start`, making it (and setting its timers) if it is new.
  Pane* GetPane(Nanos start);
  // Sets the timers of a new pane: its windows' fire timers not yet set or due, its cleanup.
  void SetPaneTimers(Nanos start);
  // Appends the results of window [start, end) for every key with data in it, with `phase`
  // and `final`; with changed_from other than kMinusInfinity, only the keys whose state
  // changed at a watermark >= changed_from (--early, a stop).
  void CollectWindow(Nanos start, Nanos end, RecordPhase phase, bool final,
                     Nanos changed_from = kMinusInfinity);
  // Sets the early timer of window [start, end) at its next early time, if one comes before
  // its end and none is set. REQUIRES: early_ > 0.
  void SetEarlyTimer(Nanos start, Nanos end);
  // Returns the slot holding `key`'s merged state over [start, end), or UINT32_MAX if none.
  uint32_t MergedSlot(uint32_t key, Nanos start, Nanos end);
  // Returns the revision to emit next for (window, key) with a record of `phase`, and
  // remembers it.
  int64_t TakeRevision(Nanos start, Nanos end, uint32_t key, RecordPhase phase);
  // Emits results_ as one firing standing at `order` (WindowOperator::Emit), and frees the
  // slots of the merged states it read.
  void EmitAndRelease(const FiringOrder& order);
  // Makes recent_* describe the pane holding time t.
  void LocatePane(Nanos t);
  // What Add returns for an event of the pane recent_* describe, at the current watermark.
  AddResult LateWindows() const;
  // Drops the pane starting at `start` and every key's state in it.
  void Purge(Nanos start);

  WindowSpec spec_;
  Nanos pane_;
  // The pane of the last event added, [recent_pane_, recent_pane_end_), the end of its first
  // window, the CleanupTimes of its first and last windows, and its number of windows (the
  // same for every time in the pane).
  Nanos recent_pane_ = kPlusInfinity, recent_pane_end_ = kPlusInfinity, recent_first_end_ = 0;
  Nanos recent_first_late_ = 0, recent_last_late_ = 0;
  uint32_t recent_windows_ = 1;
  // Pane start -> its state (held by pointer: btree values move when the tree changes).
  absl::btree_map<Nanos, std::unique_ptr<Pane>> panes_;
  Pane* recent_ = nullptr;     // the pane starting at recent_pane_, once it exists
  size_t open_entries_ = 0;    // (pane, key) entries in all panes
  size_t last_pane_keys_ = 0;  // keys in a recent pane: the size to reserve for a new one
  // Ends of the windows whose fire timer is set and has not gone off: a window's panes share
  // one timer.
  absl::flat_hash_set<Nanos> fire_set_;
  // --early: starts of the windows whose early timer is set; update mode with lateness: ends
  // of the windows whose close timer is set.
  absl::flat_hash_set<Nanos> early_set_, close_set_;
  // With revisions: per slot, the watermark when its (pane, key) state last changed (never
  // kMinusInfinity: ChangedAt), or kUnchanged when a stop wrote it since (EmitOpen).
  std::vector<Nanos> changed_at_;
  static constexpr Nanos kUnchanged = kMinusInfinity;
  // The changed_at_ value of a change at watermark `w`: any but kUnchanged.
  static Nanos ChangedAt(Nanos w) { return w == kUnchanged ? kMinusInfinity + 1 : w; }
  // The last early time of window [start, end) that the watermark passed, or kMinusInfinity
  // + 1 (every change) when none did or there is no --early.
  Nanos LastEarly(Nanos start, Nanos end) const;

  // update mode: the next revision of each emitted (window start, key) that is not yet late,
  // and when it is forgotten (its expire timer's time).
  struct Revision {
    int64_t next;
    Nanos expiry;
  };
  absl::flat_hash_map<PaneKey, Revision> revisions_;

  std::vector<WindowResult> results_;
  std::vector<uint32_t> temp_slots_;
  std::vector<Entry> scratch_, radix_scratch_;

  // Changes since the last checkpoint: a flag per slot and the list of (pane, key) it marks,
  // and the panes dropped.
  void MarkDirty(Nanos start, uint32_t key, uint32_t slot) {
    if (!track_changes_) return;
    if (slot >= dirty_.size()) dirty_.resize(slot + 1024, 0);
    if (dirty_[slot] == 0) {
      dirty_[slot] = 1;
      dirty_list_.push_back(PaneKey{start, key});
    }
  }
  std::vector<uint8_t> dirty_;
  std::vector<PaneKey> dirty_list_;
  std::vector<Nanos> purged_;
};

}  // namespace logtide
