// Accumulators: the per-(window, key) state of every aggregate in a query, stored column-wise
// in slots. A slot is one row of state; slots are recycled, so steady-state adds allocate
// nothing (count_distinct allocates for each new distinct value, first/last when a longer
// string arrives, the sketches when they grow: agg/sketches.h). Several quantiles of one
// field share one sketch.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "agg/agg_spec.h"
#include "json/value.h"
#include "time/timestamp.h"
#include "util/bytes.h"
#include "util/state_codec.h"

namespace logtide {

// Receives one aggregate result; implemented by the output writers.
class ValueSink {
 public:
  virtual ~ValueSink() = default;
  virtual void Null() = 0;
  virtual void Int(__int128 v) = 0;
  virtual void Double(double v) = 0;
  virtual void Value(const ValueRef& v) = 0;
};

// One aggregate's state column. See accumulators.cc for the state of each function.
class AggColumn {
 public:
  virtual ~AggColumn() = default;
  virtual void Resize(size_t slots) = 0;
  virtual void Reset(uint32_t slot) = 0;
  // Adds one event's value (null when the field is absent). Returns false when the value has
  // a type this aggregate ignores (a string for sum, ...).
  virtual bool Add(uint32_t slot, const ValueRef& v, Nanos t, uint64_t seq) = 0;
  // Folds src into dst, as if dst had seen src's events too.
  virtual void Merge(uint32_t dst, uint32_t src) = 0;
  virtual void Result(uint32_t slot, ValueSink* sink) const = 0;
  // Appends / reads back one slot's state (format: see accumulators.cc).
  virtual void Snapshot(uint32_t slot, ByteWriter* w) const = 0;
  virtual void Restore(uint32_t slot, ByteReader* r) = 0;
  // Describes one slot's Snapshot form, field by field (util/state_codec.h). A column that
  // snapshots nothing (a quantile that reads another's sketch) describes nothing.
  virtual void Describe(StateCodec* c) const = 0;
  virtual bool snapshots() const { return true; }
};

std::unique_ptr<AggColumn> MakeAggColumn(const AggSpec& spec);

class Accumulators {
 public:
  explicit Accumulators(const std::vector<AggSpec>& specs);

  size_t num_aggs() const { return columns_.size(); }
  // Returns an empty slot, reused from freed ones when possible.
  uint32_t Allocate();
  // Returns `slot` to the free list. REQUIRES: slot came from Allocate and is not freed.
  void Free(uint32_t slot);
  // Number of slots in use.
  size_t live() const { return capacity_ - free_.size(); }

  // Adds one event. inputs[i] is aggregate i's value. wrong_type[i] is incremented for each
  // aggregate that ignored its value for its type.
  void Add(uint32_t slot, const ValueRef* inputs, Nanos t, uint64_t seq, uint64_t* wrong_type) {
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (!columns_[i]->Add(slot, inputs[i], t, seq)) ++wrong_type[i];
    }
  }
  void Merge(uint32_t dst, uint32_t src) {
    for (auto& c : columns_) c->Merge(dst, src);
  }
  void Result(uint32_t slot, size_t agg, ValueSink* sink) const {
    columns_[agg]->Result(slot, sink);
  }

  // Appends the state of every aggregate in `slot`; Restore reads it into a freshly allocated
  // slot. A damaged blob leaves r->ok() false.
  void Snapshot(uint32_t slot, ByteWriter* w) const {
    for (const auto& c : columns_) c->Snapshot(slot, w);
  }
  void Restore(uint32_t slot, ByteReader* r) {
    for (auto& c : columns_) c->Restore(slot, r);
  }
  // Describes Snapshot's form: an object per aggregate that snapshots something, named as
  // `specs` (those this was made from) name them.
  void Describe(const std::vector<AggSpec>& specs, StateCodec* c) const;

 private:
  std::vector<std::unique_ptr<AggColumn>> columns_;
  std::vector<uint32_t> free_;
  uint32_t capacity_ = 0;
};

}  // namespace logtide
