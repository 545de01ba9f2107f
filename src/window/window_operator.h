// The window operator: keyed window state, firing and purging, following Flink's
// WindowOperator. Two implementations: panes for tumbling and sliding windows, merging
// sessions for session windows.
//
// Contract (see man/logtide.1, SEMANTICS):
//  - Add() is called with the watermark as it was before the event; an event is late, and
//    changes nothing, when every window it belongs to is late (IsWindowLate).
//  - AdvanceWatermark(w) emits every window due at w, then drops state whose windows are
//    late. The emitter writes the windows of one call sorted by (end, start, key). final
//    mode: a window is due at end + lateness. update mode: due at end with revision 0; each
//    late event accepted into an already emitted window emits that window's next revision
//    from inside Add().
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
  // The windows fired together, in any order: written sorted by (end, start, key) (see
  // engine/result_order.h). Their slots and keys are valid during the call only.
  virtual void EmitWindows(const std::vector<WindowResult>& results) = 0;
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
  // Number of row changes recorded for the next SnapshotChanges (0 when not tracking).
  virtual size_t recorded_changes() const = 0;
  // Restores into a new operator from every row and the meta blob; `watermark` is the
  // restored watermark. Returns false when the bytes are damaged.
  virtual bool Restore(const std::vector<std::pair<std::string, std::string>>& rows,
                       ByteReader* meta, Nanos watermark) = 0;

 protected:
  WindowOperator(Nanos lateness, EmitMode mode, Deps deps)
      : lateness_(lateness), mode_(mode), deps_(deps) {}
  // Emits `results` (when there are any) and clears the vector.
  void Emit(std::vector<WindowResult>* results) {
    if (!results->empty()) deps_.emitter->EmitWindows(*results);
    results->clear();
  }
  // The watermark at which a window ending at `end` is emitted for the first time.
  Nanos FireTime(Nanos end) const {
    return mode_ == EmitMode::kFinal ? SatAdd(end, lateness_) : end;
  }

  Nanos lateness_;
  EmitMode mode_;
  Deps deps_;
  bool track_changes_ = false;
};

}  // namespace logtide
