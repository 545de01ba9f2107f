// The window operator: keyed window state, firing and purging, following Flink's
// WindowOperator. Two implementations: panes for tumbling and sliding windows, merging
// sessions for session windows.
//
// Contract (see man/logtide.1, SEMANTICS):
//  - Add() is called with the watermark as it was before the event; an event is late, and
//    changes nothing, when every window it belongs to is late (IsWindowLate).
//  - AdvanceWatermark(w) emits every window due at w, sorted by (end, start, key), then drops
//    state whose windows are late. final mode: a window is due at end + lateness. update mode:
//    due at end with revision 0; each late event accepted into an already emitted window
//    emits that window's next revision from inside Add().
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "agg/accumulators.h"
#include "engine/key_table.h"
#include "json/value.h"
#include "state/state_store.h"
#include "util/bytes.h"
#include "window/window_spec.h"

namespace logtide {

enum class EmitMode { kFinal, kUpdate };

struct WindowResult {
  Nanos start;
  Nanos end;
  uint32_t key;
  uint32_t slot;     // accumulator slot holding the window's state; valid during Emit only
  int64_t revision;  // -1 in final mode
};

class ResultEmitter {
 public:
  virtual ~ResultEmitter() = default;
  virtual void Emit(const WindowResult& r) = 0;
};

class WindowOperator {
 public:
  struct Deps {
    KeyTable* keys;
    Accumulators* acc;
    ResultEmitter* emitter;
  };
  static std::unique_ptr<WindowOperator> Create(const WindowSpec& spec, Nanos lateness,
                                                EmitMode mode, Deps deps);
  virtual ~WindowOperator() = default;

  // Adds one event of `key` at time t with the aggregates' inputs. Returns false, changing
  // nothing, when the event is late. wrong_type as in Accumulators::Add.
  virtual bool Add(uint32_t key, Nanos t, const ValueRef* inputs, uint64_t seq, Nanos watermark,
                   uint64_t* wrong_type) = 0;
  // REQUIRES: w is not smaller than any watermark passed before.
  virtual void AdvanceWatermark(Nanos w) = 0;
  // Number of open (window or pane, key) states.
  virtual size_t open_entries() const = 0;
  // Number of event-time timers still to go off: for panes, one per pane start (its windows
  // fire and it is dropped as the watermark passes); for sessions, one per open session.
  virtual size_t pending_timers() const = 0;

  // Checkpointing (Arroyo's snapshot/restore hooks). The state is a set of rows (open panes or
  // sessions with their keys and accumulators) plus a small `meta` blob (cursors, revisions).
  // Appends to `ops` the row changes since the last call (with `all`, a put for every row
  // instead), and writes the meta blob.
  virtual void SnapshotChanges(std::vector<StateOp>* ops, ByteWriter* meta, bool all) = 0;
  // Whether row changes are recorded for SnapshotChanges (only with a state store: without
  // one nothing would ever take them, and the record would grow with the input).
  // REQUIRES: set before the first Add.
  void set_track_changes(bool on) { track_changes_ = on; }
  // Restores into a new operator from every row and the meta blob; `watermark` is the
  // restored watermark. Returns false when the bytes are damaged.
  virtual bool Restore(const std::vector<std::pair<std::string, std::string>>& rows,
                       ByteReader* meta, Nanos watermark) = 0;

 protected:
  WindowOperator(Nanos lateness, EmitMode mode, Deps deps)
      : lateness_(lateness), mode_(mode), deps_(deps) {}
  // Sorts `results` by (end, start, key) and emits them; clears the vector.
  void EmitSorted(std::vector<WindowResult>* results);
  // The watermark at which a window ending at `end` is emitted for the first time.
  Nanos FireTime(Nanos end) const {
    return mode_ == EmitMode::kFinal ? SatAdd(end, lateness_) : end;
  }

  Nanos lateness_;
  EmitMode mode_;
  Deps deps_;
  bool track_changes_ = false;

 private:
  struct SortItem {
    Nanos end, start;
    uint64_t prefix;  // the key's first 8 bytes, big-endian and zero-filled: orders like them
    std::string_view key;
    uint32_t index;
  };
  std::vector<ValueRef> sort_keys_;  // EmitSorted's scratch, reused
  std::vector<uint32_t> order_;
  std::vector<SortItem> string_items_;
  struct KeyItem {
    uint64_t prefix;  // as in SortItem
    uint32_t index;
  };
  std::vector<KeyItem> key_items_;
  std::vector<KeyItem> radix_scratch_;
  // Sorts by key: prefix, then bytes.
  void SortByKey(KeyItem* first, KeyItem* last);
};

}  // namespace logtide
