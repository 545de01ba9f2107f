#include "agg/accumulators.h"

#include <cmath>
#include <string>

#include <absl/container/flat_hash_set.h>

namespace logtide {
namespace {

// A column of `State`s. State provides Add, Merge, Result; a default-constructed State is empty.
template <class State>
class Column final : public AggColumn {
 public:
  explicit Column(State proto = State()) : proto_(std::move(proto)) {}
  void Resize(size_t slots) override { states_.resize(slots, proto_); }
  void Reset(uint32_t slot) override { states_[slot] = proto_; }
  bool Add(uint32_t slot, const ValueRef& v, Nanos t, uint64_t seq) override { return states_[slot].Add(v, t, seq); }
  void Merge(uint32_t dst, uint32_t src) override { states_[dst].Merge(states_[src]); }
  void Result(uint32_t slot, ValueSink* sink) const override { states_[slot].Result(sink); }

 private:
  State proto_;
  std::vector<State> states_;
};

// count: events; count(f): events whose f is not null.
struct CountState {
  bool count_nulls = true;
  int64_t n = 0;
  bool Add(const ValueRef& v, Nanos, uint64_t) {
    if (count_nulls || !v.is_null()) ++n;
    return true;
  }
  void Merge(const CountState& o) { n += o.n; }
  void Result(ValueSink* sink) const { sink->Int(n); }
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
      isum += v.i;
    } else {
      dsum += v.d;
      has_double = true;
    }
    ++n;
    return true;
  }
  void Merge(const NumericSum& o) {
    isum += o.isum;
    dsum += o.dsum;
    n += o.n;
    has_double |= o.has_double;
  }
  double total() const { return static_cast<double>(isum) + dsum; }
};

struct SumState {
  NumericSum s;
  bool Add(const ValueRef& v, Nanos, uint64_t) { return s.Add(v); }
  void Merge(const SumState& o) { s.Merge(o.s); }
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
  DistinctState(const DistinctState& o) : set(o.set ? std::make_unique<absl::flat_hash_set<std::string>>(*o.set) : nullptr) {}
  DistinctState& operator=(const DistinctState& o) {
    if (this != &o) set = o.set ? std::make_unique<absl::flat_hash_set<std::string>>(*o.set) : nullptr;
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
};

// first (kLast = false) / last (kLast = true): the non-null value at the smallest / largest
// event time; ties go to the first / last read, by the event's sequence number.
template <bool kLast>
struct EdgeState {
  bool has = false;
  Nanos t = 0;
  uint64_t seq = 0;
  ValueRef v;         // v.s points into `text` for strings and raw values
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
  EdgeState(const EdgeState& o) : has(o.has), t(o.t), seq(o.seq), v(o.v), text(o.text) { v.s = text; }
  EdgeState& operator=(const EdgeState& o) {
    if (this != &o) {
      has = o.has; t = o.t; seq = o.seq; v = o.v; text = o.text; v.s = text;
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
  void Result(ValueSink* sink) const {
    if (!has) {
      sink->Null();
    } else {
      sink->Value(v);
    }
  }
};

}  // namespace

std::unique_ptr<AggColumn> MakeAggColumn(AggKind kind) {
  switch (kind) {
    case AggKind::kCount: return std::make_unique<Column<CountState>>(CountState{true, 0});
    case AggKind::kCountField: return std::make_unique<Column<CountState>>(CountState{false, 0});
    case AggKind::kSum: return std::make_unique<Column<SumState>>();
    case AggKind::kAvg: return std::make_unique<Column<AvgState>>();
    case AggKind::kMin: return std::make_unique<Column<ExtremeState<false>>>();
    case AggKind::kMax: return std::make_unique<Column<ExtremeState<true>>>();
    case AggKind::kCountDistinct: return std::make_unique<Column<DistinctState>>();
    case AggKind::kFirst: return std::make_unique<Column<EdgeState<false>>>();
    case AggKind::kLast: return std::make_unique<Column<EdgeState<true>>>();
  }
  return nullptr;
}

Accumulators::Accumulators(const std::vector<AggSpec>& specs) {
  for (const AggSpec& s : specs) columns_.push_back(MakeAggColumn(s.kind));
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
