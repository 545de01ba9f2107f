#include "agg/accumulators.h"

#include <absl/container/flat_hash_set.h>
#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "agg/sketches.h"
#include "json/json_text.h"

// Snapshot format, per aggregate and slot, all little-endian (util/bytes.h); the state
// store's schema version covers it:
//   count, count(f):      i64 n
//   sum, avg:             i128 integer part, f64 double part, i64 n, u8 has_double
//   min, max:             u8 has, u8 is_int, i64 i, f64 d
//   count_distinct:       u32 count, then count x bytes (EncodeValue form)
//   first, last:          u8 has, i64 time, u64 seq, then the value: u8 type, u8 is_int, i64 i,
//                         f64 d, bytes text
//   quantile:             the sketch (QuantileSketch::Snapshot), once per field and filter:
//                         the other quantiles of the same field and filter write nothing
//   approx_count_distinct: DistinctSketch::Snapshot
//   top_k:                TopKSketch::Snapshot
// A sketch's form starts with its own version byte. Each state's Describe says the same
// fields by name (the form of a savepoint's window rows, man/logtide.1 SAVEPOINTS): keep the
// two in step; tests/state/savepoint_codec_test.cc turns random states into text and back.
namespace logtide {
namespace {

// Counts and integer sums cannot overflow from input (a count would take 2^63 events, an int128
// sum 2^64 values of int64), but a restored state may hold any value: additions to them wrap,
// which is defined, where overflowing is not (the same instruction).
int64_t AddWrapping(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
__int128 AddWrapping(__int128 a, __int128 b) {
  return static_cast<__int128>(static_cast<unsigned __int128>(a) +
                               static_cast<unsigned __int128>(b));
}

void SnapshotValue(const ValueRef& v, ByteWriter* w) {
  w->U8(static_cast<uint8_t>(v.type));
  w->U8(v.is_int);
  w->I64(v.i);
  w->F64(v.d);
  w->Bytes(v.s);
}

// Reads a value; for strings and raw values, `text` receives the bytes and v.s points to it.
ValueRef RestoreValue(ByteReader* r, std::string* text) {
  ValueRef v;
  uint8_t type = r->U8();
  if (type > static_cast<uint8_t>(ValueType::kRaw)) r->Fail();  // no value of a run has it
  v.type = r->ok() ? static_cast<ValueType>(type) : ValueType::kNull;
  v.is_int = r->U8() != 0;
  v.i = r->I64();
  v.d = r->F64();
  text->assign(r->Bytes());
  // An object's or array's text is JSON: a record writes it as it is.
  if (v.type == ValueType::kRaw) {
    std::string encoded;
    EncodeValue(ValueRef::Raw(*text), &encoded);
    if (!IsEncodedValues(encoded)) r->Fail();
  }
  v.s = *text;
  return v;
}

// SnapshotValue's form.
void DescribeValue(StateCodec* c) {
  c->Object("value");
  if (c->U8("type") > static_cast<uint8_t>(ValueType::kRaw)) c->Fail("not a value's type (0 to 5)");
  c->Bool("is_int");
  c->I64("int");
  c->F64("double");
  c->Bytes("text");
  c->End();
}

// A column of `State`s. State provides Add, Merge, Result; a default-constructed State is empty.
template <class State>
class Column final : public AggColumn {
 public:
  explicit Column(State proto = State()) : proto_(std::move(proto)) {}
  void Resize(size_t slots) override { states_.resize(slots, proto_); }
  void Reset(uint32_t slot) override { states_[slot] = proto_; }
  bool Add(uint32_t slot, const ValueRef& v, Nanos t, uint64_t seq) override {
    return states_[slot].Add(v, t, seq);
  }
  void Merge(uint32_t dst, uint32_t src) override { states_[dst].Merge(states_[src]); }
  void Result(uint32_t slot, ValueSink* sink) const override { states_[slot].Result(sink); }
  void Snapshot(uint32_t slot, ByteWriter* w) const override { states_[slot].Snapshot(w); }
  void Restore(uint32_t slot, ByteReader* r) override { states_[slot].Restore(r); }
  void Describe(StateCodec* c) const override { State::Describe(c); }

 private:
  State proto_;
  std::vector<State> states_;
};

// count (kNulls): events; count(f): events whose f is not null. Which one is the type's, not
// each slot's: a slot is the count alone, 8 bytes (a column of many keys stays smaller in
// cache).
template <bool kNulls>
struct CountState {
  int64_t n = 0;
  bool Add(const ValueRef& v, Nanos, uint64_t) {
    if (kNulls || !v.is_null()) n = AddWrapping(n, int64_t{1});
    return true;
  }
  void Merge(const CountState& o) { n = AddWrapping(n, o.n); }
  void Result(ValueSink* sink) const { sink->Int(n); }
  void Snapshot(ByteWriter* w) const { w->I64(n); }
  // A count is never negative (2^63 events would take a run centuries).
  void Restore(ByteReader* r) {
    n = r->I64();
    if (n < 0) r->Fail();
  }
  static void Describe(StateCodec* c) {
    if (c->I64("n") < 0) c->Fail("a count is not negative");
  }
};

// Exact integer part and double part kept apart: a sum of integers stays an exact integer
// (128-bit, so it cannot wrap), and turns into a double once any non-integer is added.
struct NumericSum {
  __int128 isum = 0;
  double dsum = 0;
  int64_t n = 0;
  bool has_double = false;
  bool Add(const ValueRef& v) {
    if (v.is_null()) return true;
    if (!v.is_number()) return false;
    if (v.is_int) {
      isum = AddWrapping(isum, __int128{v.i});
    } else {
      dsum += v.d;
      has_double = true;
    }
    n = AddWrapping(n, int64_t{1});
    return true;
  }
  void Merge(const NumericSum& o) {
    isum = AddWrapping(isum, o.isum);
    dsum += o.dsum;
    n = AddWrapping(n, o.n);
    has_double |= o.has_double;
  }
  double total() const { return static_cast<double>(isum) + dsum; }
  void Snapshot(ByteWriter* w) const {
    w->I128(isum);
    w->F64(dsum);
    w->I64(n);
    w->U8(has_double);
  }
  void Restore(ByteReader* r) {
    isum = r->I128();
    dsum = r->F64();
    n = r->I64();
    if (n < 0) r->Fail();
    has_double = r->U8() != 0;
  }
  static void Describe(StateCodec* c) {
    c->I128("integer");
    c->F64("double");
    if (c->I64("n") < 0) c->Fail("a count is not negative");
    c->Bool("has_double");
  }
};

struct SumState {
  NumericSum s;
  bool Add(const ValueRef& v, Nanos, uint64_t) { return s.Add(v); }
  void Merge(const SumState& o) { s.Merge(o.s); }
  void Snapshot(ByteWriter* w) const { s.Snapshot(w); }
  void Restore(ByteReader* r) { s.Restore(r); }
  static void Describe(StateCodec* c) { NumericSum::Describe(c); }
  void Result(ValueSink* sink) const {
    if (s.n == 0) {
      sink->Null();
    } else if (!s.has_double) {
      sink->Int(s.isum);
    } else {
      sink->Double(s.total());
    }
  }
};

struct AvgState {
  NumericSum s;
  bool Add(const ValueRef& v, Nanos, uint64_t) { return s.Add(v); }
  void Merge(const AvgState& o) { s.Merge(o.s); }
  void Snapshot(ByteWriter* w) const { s.Snapshot(w); }
  void Restore(ByteReader* r) { s.Restore(r); }
  static void Describe(StateCodec* c) { NumericSum::Describe(c); }
  void Result(ValueSink* sink) const {
    if (s.n == 0) {
      sink->Null();
    } else {
      sink->Double(s.total() / static_cast<double>(s.n));
    }
  }
};

// min (kMax = false) or max (kMax = true) of the numeric values; the winner keeps its type.
template <bool kMax>
struct ExtremeState {
  bool has = false;
  ValueRef best;  // a number: no string_view is ever kept
  void Offer(const ValueRef& v) {
    if (!has || (kMax ? CompareValues(v, best) > 0 : CompareValues(v, best) < 0)) {
      best = v;
      best.s = {};
      has = true;
    }
  }
  bool Add(const ValueRef& v, Nanos, uint64_t) {
    if (v.is_null()) return true;
    if (!v.is_number()) return false;
    Offer(v);
    return true;
  }
  void Merge(const ExtremeState& o) {
    if (o.has) Offer(o.best);
  }
  void Snapshot(ByteWriter* w) const {
    w->U8(has);
    w->U8(best.is_int);
    w->I64(best.i);
    w->F64(best.d);
  }
  void Restore(ByteReader* r) {
    has = r->U8() != 0;
    best = ValueRef();
    best.type = ValueType::kNumber;
    best.is_int = r->U8() != 0;
    best.i = r->I64();
    best.d = r->F64();
  }
  static void Describe(StateCodec* c) {
    c->Bool("has");
    c->Bool("is_int");
    c->I64("int");
    c->F64("double");
  }
  void Result(ValueSink* sink) const {
    if (!has) {
      sink->Null();
    } else {
      sink->Value(best);
    }
  }
};

// Exact distinct count: the set of encoded non-null values, allocated on the first value.
struct DistinctState {
  std::unique_ptr<absl::flat_hash_set<std::string>> set;
  DistinctState() = default;
  DistinctState(const DistinctState& o)
      : set(o.set ? std::make_unique<absl::flat_hash_set<std::string>>(*o.set) : nullptr) {}
  DistinctState& operator=(const DistinctState& o) {
    if (this != &o)
      set = o.set ? std::make_unique<absl::flat_hash_set<std::string>>(*o.set) : nullptr;
    return *this;
  }
  bool Add(const ValueRef& v, Nanos, uint64_t) {
    if (v.is_null()) return true;
    thread_local std::string scratch;
    scratch.clear();
    EncodeValue(v, &scratch);
    if (!set) set = std::make_unique<absl::flat_hash_set<std::string>>();
    if (!set->contains(scratch)) set->insert(scratch);
    return true;
  }
  void Merge(const DistinctState& o) {
    if (!o.set) return;
    if (!set) set = std::make_unique<absl::flat_hash_set<std::string>>();
    set->insert(o.set->begin(), o.set->end());
  }
  void Result(ValueSink* sink) const { sink->Int(set ? static_cast<int64_t>(set->size()) : 0); }
  void Snapshot(ByteWriter* w) const {
    // Sorted, so that equal states give equal bytes.
    std::vector<std::string_view> values;
    if (set) values.assign(set->begin(), set->end());
    std::sort(values.begin(), values.end());
    w->U32(static_cast<uint32_t>(values.size()));
    for (std::string_view v : values) w->Bytes(v);
  }
  void Restore(ByteReader* r) {
    uint32_t n = r->U32();
    set.reset();
    if (n == 0) return;
    set = std::make_unique<absl::flat_hash_set<std::string>>();
    for (uint32_t i = 0; i < n && r->ok(); ++i) {
      const std::string_view v = r->Bytes();
      // Each one value's key encoding, as Add makes them (what a savepoint's text decodes).
      if (!IsEncodedKey(v, 1)) r->Fail();
      set->insert(std::string(v));
    }
  }
  static void Describe(StateCodec* c) {
    const uint64_t n = c->List("values");
    for (uint64_t i = 0; i < n && c->ok(); ++i) c->Value("");
    c->End();
  }
};

// first (kLast = false) / last (kLast = true): the non-null value at the smallest / largest
// event time; ties go to the first / last read, by the event's sequence number.
template <bool kLast>
struct EdgeState {
  bool has = false;
  Nanos t = 0;
  uint64_t seq = 0;
  ValueRef v;  // v.s points into `text` for strings and raw values
  std::string text;
  bool Wins(Nanos ot, uint64_t oseq) const {
    if (!has) return true;
    if (ot != t) return kLast ? ot > t : ot < t;
    return kLast ? oseq > seq : oseq < seq;
  }
  void Take(const ValueRef& nv, Nanos nt, uint64_t nseq) {
    has = true;
    t = nt;
    seq = nseq;
    v = nv;
    text.assign(nv.s.data(), nv.s.size());
    v.s = text;
  }
  EdgeState() = default;
  EdgeState(const EdgeState& o) : has(o.has), t(o.t), seq(o.seq), v(o.v), text(o.text) {
    v.s = text;
  }
  EdgeState& operator=(const EdgeState& o) {
    if (this != &o) {
      has = o.has;
      t = o.t;
      seq = o.seq;
      v = o.v;
      text = o.text;
      v.s = text;
    }
    return *this;
  }
  bool Add(const ValueRef& nv, Nanos nt, uint64_t nseq) {
    if (nv.is_null()) return true;
    if (Wins(nt, nseq)) Take(nv, nt, nseq);
    return true;
  }
  void Merge(const EdgeState& o) {
    if (o.has && Wins(o.t, o.seq)) Take(o.v, o.t, o.seq);
  }
  void Snapshot(ByteWriter* w) const {
    w->U8(has);
    w->I64(t);
    w->U64(seq);
    SnapshotValue(v, w);
  }
  void Restore(ByteReader* r) {
    has = r->U8() != 0;
    t = r->I64();
    seq = r->U64();
    v = RestoreValue(r, &text);
  }
  static void Describe(StateCodec* c) {
    c->Bool("has");
    c->I64("time");
    c->U64("seq");
    DescribeValue(c);
  }
  void Result(ValueSink* sink) const {
    if (!has) {
      sink->Null();
    } else {
      sink->Value(v);
    }
  }
};

// A number for a sketch: ints as doubles (exact below 2^53, rounded past it); NaN and
// infinities cannot come from JSON but are refused all the same.
bool SketchNumber(const ValueRef& v, double* d) {
  if (!v.is_number()) return false;
  *d = v.is_int ? static_cast<double>(v.i) : v.d;
  return std::isfinite(*d);
}

// quantile(f, Q): owns one QuantileSketch per slot. The other quantiles of the same field
// are QuantileViews of it.
class QuantileColumn final : public AggColumn {
 public:
  explicit QuantileColumn(double q) : q_(q) {}
  void Resize(size_t slots) override { sketches_.resize(slots); }
  void Reset(uint32_t slot) override { sketches_[slot] = QuantileSketch(); }
  bool Add(uint32_t slot, const ValueRef& v, Nanos, uint64_t) override {
    if (v.is_null()) return true;
    double d;
    if (!SketchNumber(v, &d)) return false;
    sketches_[slot].Add(d);
    return true;
  }
  void Merge(uint32_t dst, uint32_t src) override { sketches_[dst].Merge(sketches_[src]); }
  void Result(uint32_t slot, ValueSink* sink) const override { ResultAt(slot, q_, sink); }
  void ResultAt(uint32_t slot, double q, ValueSink* sink) const {
    const QuantileSketch& s = sketches_[slot];
    if (s.count() == 0) {
      sink->Null();
    } else {
      sink->Double(s.Quantile(q));
    }
  }
  void Snapshot(uint32_t slot, ByteWriter* w) const override { sketches_[slot].Snapshot(w); }
  void Restore(uint32_t slot, ByteReader* r) override { sketches_[slot].Restore(r); }
  void Describe(StateCodec* c) const override { QuantileSketch::Describe(c); }

 private:
  double q_;
  std::vector<QuantileSketch> sketches_;
};

// Another quantile of a field that a QuantileColumn already sketches: only reads it.
class QuantileView final : public AggColumn {
 public:
  QuantileView(const QuantileColumn* owner, double q) : owner_(owner), q_(q) {}
  void Resize(size_t) override {}
  void Reset(uint32_t) override {}
  bool Add(uint32_t, const ValueRef&, Nanos, uint64_t) override { return true; }
  void Merge(uint32_t, uint32_t) override {}
  void Result(uint32_t slot, ValueSink* sink) const override { owner_->ResultAt(slot, q_, sink); }
  void Snapshot(uint32_t, ByteWriter*) const override {}
  void Restore(uint32_t, ByteReader*) override {}
  void Describe(StateCodec*) const override {}
  bool snapshots() const override { return false; }

 private:
  const QuantileColumn* owner_;
  double q_;
};

// approx_count_distinct(f): a DistinctSketch of the values' key encodings, so that 200,
// 200.0 and 2e2 are one value, as in --by and count_distinct.
struct ApproxDistinctState {
  DistinctSketch sketch;
  bool Add(const ValueRef& v, Nanos, uint64_t) {
    if (v.is_null()) return true;
    thread_local std::string scratch;
    scratch.clear();
    EncodeValue(v, &scratch);
    sketch.AddHash(XXH3_64bits(scratch.data(), scratch.size()));
    return true;
  }
  void Merge(const ApproxDistinctState& o) { sketch.Merge(o.sketch); }
  void Result(ValueSink* sink) const { sink->Int(static_cast<int64_t>(sketch.Estimate())); }
  void Snapshot(ByteWriter* w) const { sketch.Snapshot(w); }
  void Restore(ByteReader* r) { sketch.Restore(r); }
  static void Describe(StateCodec* c) { DistinctSketch::Describe(c); }
};

// top_k(f, K): a TopKSketch of the values' key encodings; the result is a JSON array of
// {"value":V,"count":C,"error":E}, largest count first, ties by value.
class TopKColumn final : public AggColumn {
 public:
  explicit TopKColumn(uint32_t k) : k_(k), proto_(TopKSketch::CapacityFor(k)) {}
  void Resize(size_t slots) override { sketches_.resize(slots, proto_); }
  void Reset(uint32_t slot) override { sketches_[slot] = proto_; }
  bool Add(uint32_t slot, const ValueRef& v, Nanos, uint64_t) override {
    if (v.is_null()) return true;
    thread_local std::string scratch;
    scratch.clear();
    EncodeValue(v, &scratch);
    sketches_[slot].Add(scratch);
    return true;
  }
  void Merge(uint32_t dst, uint32_t src) override { sketches_[dst].Merge(sketches_[src]); }
  void Result(uint32_t slot, ValueSink* sink) const override {
    thread_local std::string json, scratch;
    json.assign("[");
    for (const TopKSketch::Entry* e : sketches_[slot].Top(k_)) {
      if (json.size() > 1) json += ',';
      json += "{\"value\":";
      std::string_view key = e->value;
      AppendJsonValue(DecodeValue(&key, &scratch), &json);
      json += ",\"count\":";
      AppendInt128(e->count, &json);
      json += ",\"error\":";
      AppendInt128(e->error, &json);
      json += '}';
    }
    json += ']';
    sink->Value(ValueRef::Raw(json));
  }
  void Snapshot(uint32_t slot, ByteWriter* w) const override { sketches_[slot].Snapshot(w); }
  void Restore(uint32_t slot, ByteReader* r) override {
    // Values restored are key encodings that decode without reading past their end.
    if (sketches_[slot].Restore(r) && !sketches_[slot].ValuesAre(IsOneEncodedValue)) r->Fail();
  }
  void Describe(StateCodec* c) const override { TopKSketch::Describe(c); }

 private:
  static bool IsOneEncodedValue(std::string_view bytes) { return IsEncodedKey(bytes, 1); }
  uint32_t k_;
  TopKSketch proto_;
  std::vector<TopKSketch> sketches_;
};

}  // namespace

std::unique_ptr<AggColumn> MakeAggColumn(const AggSpec& spec) {
  switch (spec.kind) {
    case AggKind::kQuantile:
      return std::make_unique<QuantileColumn>(spec.q);
    case AggKind::kApproxDistinct:
      return std::make_unique<Column<ApproxDistinctState>>();
    case AggKind::kTopK:
      return std::make_unique<TopKColumn>(spec.k);
    case AggKind::kCount:
      // Filtered, its input is true for its events and null for the others (EventParser).
      if (!spec.filter.empty()) return std::make_unique<Column<CountState<false>>>();
      return std::make_unique<Column<CountState<true>>>();
    case AggKind::kCountField:
      return std::make_unique<Column<CountState<false>>>();
    case AggKind::kSum:
      return std::make_unique<Column<SumState>>();
    case AggKind::kAvg:
      return std::make_unique<Column<AvgState>>();
    case AggKind::kMin:
      return std::make_unique<Column<ExtremeState<false>>>();
    case AggKind::kMax:
      return std::make_unique<Column<ExtremeState<true>>>();
    case AggKind::kCountDistinct:
      return std::make_unique<Column<DistinctState>>();
    case AggKind::kFirst:
      return std::make_unique<Column<EdgeState<false>>>();
    case AggKind::kLast:
      return std::make_unique<Column<EdgeState<true>>>();
  }
  return nullptr;
}

Accumulators::Accumulators(const std::vector<AggSpec>& specs) {
  for (size_t i = 0; i < specs.size(); ++i) {
    const AggSpec& s = specs[i];
    const AggColumn* owner = nullptr;
    for (size_t j = 0; j < i && s.kind == AggKind::kQuantile; ++j) {
      // Only over the same events: a filter aggregate's quantiles have their own sketch.
      if (specs[j].kind == AggKind::kQuantile && specs[j].field == s.field &&
          specs[j].filter == s.filter && !owner) {
        owner = columns_[j].get();
      }
    }
    if (owner != nullptr) {
      // The first quantile of this field holds the sketch (a QuantileColumn, not a view).
      columns_.push_back(
          std::make_unique<QuantileView>(static_cast<const QuantileColumn*>(owner), s.q));
    } else {
      columns_.push_back(MakeAggColumn(s));
    }
  }
}

void Accumulators::Describe(const std::vector<AggSpec>& specs, StateCodec* c) const {
  for (size_t i = 0; i < columns_.size() && c->ok(); ++i) {
    if (!columns_[i]->snapshots()) continue;
    c->Object(specs[i].name);
    columns_[i]->Describe(c);
    c->End();
  }
}

uint32_t Accumulators::Allocate() {
  if (!free_.empty()) {
    uint32_t slot = free_.back();
    free_.pop_back();
    return slot;
  }
  uint32_t slot = capacity_++;
  if (slot % 1024 == 0) {
    for (auto& c : columns_) c->Resize(slot + 1024);
  }
  return slot;
}

void Accumulators::Free(uint32_t slot) {
  for (auto& c : columns_) c->Reset(slot);
  free_.push_back(slot);
}

}  // namespace logtide
