#include "agg/sketches.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

namespace logtide {
namespace {

// Buckets are built for 0.99% (see kRelativeError).
constexpr double kBucketError = 0.0099;
const double kGamma = (1 + kBucketError) / (1 - kBucketError);
const double kInvLogGamma = 1 / std::log(kGamma);

}  // namespace

// ---- QuantileSketch ----

uint64_t QuantileRank(double q, uint64_t n) {
  // ceil(q n) - 1 with q n rounded as SQL engines round it (DuckDB's quantile_disc): n minus
  // the whole part of n - q n, at least 1, so that q n = 99.00000000000001 is 99, not 100.
  const auto nd = static_cast<double>(n);
  const double below = std::floor(nd - nd * q);
  const double rank1 = std::max(1.0, nd - below);  // 1-based
  return std::min(static_cast<uint64_t>(rank1), n) - 1;
}

int32_t QuantileSketch::Index(double magnitude) {
  // Finite and positive: log() is within [-745, 710], the index within about +-37,600.
  return static_cast<int32_t>(std::ceil(std::log(magnitude) * kInvLogGamma));
}

double QuantileSketch::Estimate(int32_t index) {
  return 2 * std::pow(kGamma, index) / (kGamma + 1);
}

void QuantileSketch::Store::Reserve(int32_t a, int32_t b) {
  const int32_t end = base + static_cast<int32_t>(counts.size());
  if (!counts.empty() && a >= base && b < end) return;
  // Room on both sides, so that a range creeping one bucket at a time is not copied each time.
  const int32_t need = b - a + 1;
  const int32_t slack = std::min(need / 2 + 16, kMaxBuckets);
  std::vector<uint64_t> grown(static_cast<size_t>(need + 2 * slack), 0);
  const int32_t new_base = a - slack;
  // Callers moved every nonzero count into [a, b] first.
  for (int32_t i = std::max(lo, a); total > 0 && i <= std::min(hi, b); ++i) {
    grown[static_cast<size_t>(i - new_base)] = at(i);
  }
  counts = std::move(grown);
  base = new_base;
}

void QuantileSketch::Store::Add(int32_t index, uint64_t n) {
  if (index >= lo && index <= hi) {  // the common case: within the range (empty: lo > hi)
    counts[static_cast<size_t>(index - base)] += n;
    total += n;
    return;
  }
  if (total == 0) {
    Reserve(index, index);
    lo = hi = index;
  } else {
    const int32_t new_hi = std::max(hi, index);
    int32_t new_lo = std::min(lo, index);
    if (static_cast<int64_t>(new_hi) - new_lo + 1 > kMaxBuckets) {
      // Collapse: buckets below the kMaxBuckets-th from the top fold into it.
      new_lo = new_hi - kMaxBuckets + 1;
      uint64_t moved = 0;
      for (int32_t i = lo; i <= std::min(hi, new_lo - 1); ++i) {
        uint64_t& c = counts[static_cast<size_t>(i - base)];
        moved += c;
        c = 0;
      }
      // Every count below new_lo is zero now; those left lie in [max(lo, new_lo), hi], which
      // Reserve keeps (an empty range when all moved).
      lo = std::max(lo, new_lo);
      Reserve(new_lo, new_hi);
      counts[static_cast<size_t>(new_lo - base)] += moved;
      index = std::max(index, new_lo);
    } else {
      Reserve(new_lo, new_hi);
    }
    lo = new_lo;
    hi = new_hi;
  }
  counts[static_cast<size_t>(index - base)] += n;
  total += n;
}

void QuantileSketch::AddToBuckets(double x, uint64_t n) {
  if (x > 0) {
    pos_.Add(Index(x), n);
  } else if (x < 0) {
    neg_.Add(Index(-x), n);
  } else {
    zero_ += n;
  }
}

void QuantileSketch::ToBuckets() {
  for (double x : exact_) AddToBuckets(x, 1);
  exact_.clear();
  exact_.shrink_to_fit();
  bucketed_ = true;
}

void QuantileSketch::Add(double x) {
  if (x == 0) x = 0;  // -0.0 and 0.0 are one value, with one byte form
  if (count() == 0) {
    min_ = max_ = x;
  } else {
    min_ = std::min(min_, x);
    max_ = std::max(max_, x);
  }
  if (bucketed_) {
    AddToBuckets(x, 1);
    return;
  }
  exact_.insert(std::upper_bound(exact_.begin(), exact_.end(), x), x);
  if (exact_.size() > kExactMax) ToBuckets();
}

void QuantileSketch::Merge(const QuantileSketch& o) {
  if (o.count() == 0) return;
  if (count() == 0) {
    min_ = o.min_;
    max_ = o.max_;
  } else {
    min_ = std::min(min_, o.min_);
    max_ = std::max(max_, o.max_);
  }
  if (!bucketed_ && !o.bucketed_ && exact_.size() + o.exact_.size() <= kExactMax) {
    std::vector<double> both;
    both.reserve(exact_.size() + o.exact_.size());
    std::merge(exact_.begin(), exact_.end(), o.exact_.begin(), o.exact_.end(),
               std::back_inserter(both));
    exact_ = std::move(both);
    return;
  }
  if (!bucketed_) ToBuckets();
  if (!o.bucketed_) {
    for (double x : o.exact_) AddToBuckets(x, 1);
    return;
  }
  zero_ += o.zero_;
  // From the top down: the largest index comes first, so a collapse happens at most once.
  for (const auto& [mine, theirs] : {std::pair{&pos_, &o.pos_}, std::pair{&neg_, &o.neg_}}) {
    if (theirs->total == 0) continue;
    for (int32_t i = theirs->hi; i >= theirs->lo; --i) {
      if (const uint64_t c = theirs->at(i)) mine->Add(i, c);
    }
  }
}

namespace {

// An estimate to 6 significant digits: its rounding (at most 5e-6 relative) stays inside the
// 0.01% the buckets leave under the guarantee, and 12.4851 reads better than 12.48506928110.
double SixDigits(double v) {
  char buf[32];
  const auto end = fmt::format_to_n(buf, sizeof buf - 1, "{:.6g}", v).out;
  *end = '\0';
  return std::strtod(buf, nullptr);
}

}  // namespace

double QuantileSketch::Quantile(double q) const {
  const uint64_t n = count();
  const uint64_t rank = QuantileRank(q, n);
  if (!bucketed_) return exact_[std::min<uint64_t>(rank, n - 1)];
  if (rank == 0) return min_;
  if (rank >= n - 1) return max_;
  double v = 0;
  uint64_t seen = 0;
  bool found = false;
  // Ascending: negative values from the largest magnitude down, zero, positive values up.
  if (neg_.total > 0) {
    for (int32_t i = neg_.hi; i >= neg_.lo && !found; --i) {
      seen += neg_.at(i);
      if (rank < seen) {
        v = -Estimate(i);
        found = true;
      }
    }
  }
  if (!found) {
    seen += zero_;
    if (rank < seen) return 0;
    for (int32_t i = pos_.lo; i <= pos_.hi; ++i) {
      seen += pos_.at(i);
      if (rank < seen) {
        v = Estimate(i);
        break;
      }
    }
  }
  return std::clamp(SixDigits(v), min_, max_);
}

bool QuantileSketch::operator==(const QuantileSketch& o) const {
  std::string a, b;
  ByteWriter wa(&a), wb(&b);
  Snapshot(&wa);
  o.Snapshot(&wb);
  return a == b;
}

void QuantileSketch::Snapshot(ByteWriter* w) const {
  w->U8(1);
  if (!bucketed_) {
    w->U8(0);
    w->U32(static_cast<uint32_t>(exact_.size()));
    for (double x : exact_) w->F64(x);
    return;
  }
  w->U8(1);
  w->U64(zero_);
  w->F64(min_);
  w->F64(max_);
  for (const Store* st : {&pos_, &neg_}) {
    if (st->total == 0) {
      w->U32(0);
      continue;
    }
    w->U32(static_cast<uint32_t>(st->hi - st->lo + 1));
    w->U32(static_cast<uint32_t>(st->lo));
    for (int32_t i = st->lo; i <= st->hi; ++i) w->Varint(st->at(i));
  }
}

bool QuantileSketch::Restore(ByteReader* r) {
  *this = QuantileSketch();
  QuantileSketch s;
  if (r->U8() != 1) r->Fail();
  const uint8_t form = r->U8();
  if (form == 0) {
    const uint32_t n = r->U32();
    if (n > kExactMax) r->Fail();
    for (uint32_t i = 0; i < n && r->ok(); ++i) {
      const double x = r->F64();
      // Finite, ascending, and 0 as +0.0 (what Add keeps).
      if (!std::isfinite(x) || (!s.exact_.empty() && x < s.exact_.back()) ||
          (x == 0 && std::signbit(x)))
        r->Fail();
      s.exact_.push_back(x);
    }
    if (n > 0) {
      s.min_ = s.exact_.front();
      s.max_ = s.exact_.back();
    }
  } else if (form == 1) {
    s.bucketed_ = true;
    s.zero_ = r->U64();
    s.min_ = r->F64();
    s.max_ = r->F64();
    for (Store* st : {&s.pos_, &s.neg_}) {
      const uint32_t n = r->U32();
      if (!r->ok() || n == 0) continue;
      const auto lo = static_cast<int32_t>(r->U32());
      // Indexes of finite doubles lie within about +-37,600.
      if (n > static_cast<uint32_t>(kMaxBuckets) || lo < -40000 || lo > 40000) {
        r->Fail();
        break;
      }
      st->Reserve(lo, lo + static_cast<int32_t>(n) - 1);
      st->lo = lo;
      st->hi = lo + static_cast<int32_t>(n) - 1;
      uint64_t total = 0;
      for (int32_t i = st->lo; i <= st->hi && r->ok(); ++i) {
        const uint64_t c = r->Varint();
        st->counts[static_cast<size_t>(i - st->base)] = c;
        if (__builtin_add_overflow(total, c, &total)) r->Fail();
      }
      // Both ends of a written range are nonzero.
      if (total == 0 || st->at(st->lo) == 0 || st->at(st->hi) == 0) r->Fail();
      st->total = total;
    }
    uint64_t n = 0;
    // Buckets are only ever written for more values than the exact form holds.
    if (__builtin_add_overflow(s.pos_.total, s.neg_.total, &n) ||
        __builtin_add_overflow(n, s.zero_, &n) || n <= kExactMax)
      r->Fail();
    if (!(std::isfinite(s.min_) && std::isfinite(s.max_) && s.min_ <= s.max_)) r->Fail();
  } else {
    r->Fail();
  }
  if (!r->ok()) return false;
  *this = std::move(s);
  return true;
}

// ---- DistinctSketch ----

namespace {

constexpr int kHashBits = 64 - DistinctSketch::kPrecision;  // q in Ertl's paper: 50

// sigma and tau of Ertl's improved raw estimator (arXiv:1702.01284, Algorithm 6).
double Sigma(double x) {
  if (x == 1) return std::numeric_limits<double>::infinity();
  double y = 1, z = x, prev;
  do {
    x *= x;
    prev = z;
    z += x * y;
    y += y;
  } while (z != prev);
  return z;
}

double Tau(double x) {
  if (x == 0 || x == 1) return 0;
  double y = 1, z = 1 - x, prev;
  do {
    x = std::sqrt(x);
    prev = z;
    y *= 0.5;
    z -= (1 - x) * (1 - x) * y;
  } while (z != prev);
  return z / 3;
}

}  // namespace

void DistinctSketch::AddDense(uint64_t h) {
  const uint64_t index = h >> kHashBits;
  const uint64_t rest = h << kPrecision;  // the other 50 bits, at the top
  const int rho = rest == 0 ? kHashBits + 1 : std::countl_zero(rest) + 1;
  uint8_t& r = registers_[index];
  if (rho > r) r = static_cast<uint8_t>(rho);
}

void DistinctSketch::ToDense() {
  registers_.assign(kRegisters, 0);
  for (uint64_t h : sparse_) AddDense(h);
  sparse_.clear();
  sparse_.shrink_to_fit();
}

void DistinctSketch::AddHash(uint64_t h) {
  if (dense()) {
    AddDense(h);
    return;
  }
  auto it = std::lower_bound(sparse_.begin(), sparse_.end(), h);
  if (it != sparse_.end() && *it == h) return;
  sparse_.insert(it, h);
  if (sparse_.size() > kSparseMax) ToDense();
}

void DistinctSketch::Merge(const DistinctSketch& o) {
  if (&o == this) return;  // a set's union with itself
  if (o.dense()) {
    if (!dense()) ToDense();
    // Through restrict pointers (two sketches never share registers), so that the compiler
    // makes it a vector loop: a sliding window's result merges 60 panes' registers.
    uint8_t* __restrict to = registers_.data();
    const uint8_t* __restrict from = o.registers_.data();
    for (uint32_t i = 0; i < kRegisters; ++i) to[i] = std::max(to[i], from[i]);
    return;
  }
  if (dense()) {
    for (uint64_t h : o.sparse_) AddDense(h);
    return;
  }
  std::vector<uint64_t> both;
  both.reserve(sparse_.size() + o.sparse_.size());
  std::set_union(sparse_.begin(), sparse_.end(), o.sparse_.begin(), o.sparse_.end(),
                 std::back_inserter(both));
  sparse_ = std::move(both);
  if (sparse_.size() > kSparseMax) ToDense();
}

uint64_t DistinctSketch::Estimate() const {
  if (!dense()) return sparse_.size();
  uint32_t c[kHashBits + 2] = {};
  for (uint8_t r : registers_) ++c[r];
  const double m = kRegisters;
  double z = m * Tau(1 - c[kHashBits + 1] / m);
  for (int k = kHashBits; k >= 1; --k) {
    z += c[k];
    z *= 0.5;
  }
  z += m * Sigma(c[0] / m);
  const double alpha_inf = 1 / (2 * std::log(2.0));
  return static_cast<uint64_t>(std::llround(alpha_inf * m * m / z));
}

void DistinctSketch::Snapshot(ByteWriter* w) const {
  w->U8(1);
  if (!dense()) {
    w->U8(0);
    w->U32(static_cast<uint32_t>(sparse_.size()));
    for (uint64_t h : sparse_) w->U64(h);
    return;
  }
  w->U8(1);
  for (uint32_t i = 0; i < kRegisters; i += 4) {
    const uint32_t packed = registers_[i] | registers_[i + 1] << 6 | registers_[i + 2] << 12 |
                            registers_[i + 3] << 18;
    w->U8(packed & 0xFF);
    w->U8(packed >> 8 & 0xFF);
    w->U8(packed >> 16 & 0xFF);
  }
}

bool DistinctSketch::Restore(ByteReader* r) {
  *this = DistinctSketch();
  DistinctSketch s;
  if (r->U8() != 1) r->Fail();
  const uint8_t form = r->U8();
  if (form == 0) {
    const uint32_t n = r->U32();
    if (n > kSparseMax) r->Fail();
    for (uint32_t i = 0; i < n && r->ok(); ++i) {
      const uint64_t h = r->U64();
      if (!s.sparse_.empty() && h <= s.sparse_.back()) r->Fail();  // sorted, no repeats
      s.sparse_.push_back(h);
    }
  } else if (form == 1) {
    s.registers_.assign(kRegisters, 0);
    for (uint32_t i = 0; i < kRegisters && r->ok(); i += 4) {
      const uint32_t packed = r->U8() | r->U8() << 8 | r->U8() << 16;
      for (uint32_t j = 0; j < 4; ++j) {
        const uint8_t v = packed >> (6 * j) & 0x3F;
        if (v > kHashBits + 1) r->Fail();
        s.registers_[i + j] = v;
      }
    }
  } else {
    r->Fail();
  }
  if (!r->ok()) return false;
  *this = std::move(s);
  return true;
}

// ---- TopKSketch ----

size_t TopKSketch::CapacityFor(uint32_t k) { return std::max<size_t>(size_t{10} * k, 64); }

TopKSketch::TopKSketch(const TopKSketch& o)
    : capacity_(o.capacity_),
      entries_(o.entries_),
      lookup_(o.lookup_ ? std::make_unique<Lookup>(*o.lookup_) : nullptr) {}

TopKSketch& TopKSketch::operator=(const TopKSketch& o) {
  if (this != &o) *this = TopKSketch(o);
  return *this;
}

size_t TopKSketch::Find(std::string_view value) const {
  if (lookup_) {
    const auto it = lookup_->index.find(value);
    return it == lookup_->index.end() ? entries_.size() : it->second;
  }
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].value == value) return i;
  }
  return entries_.size();
}

uint32_t TopKSketch::Victim() const {
  if (lookup_ && !lookup_->heap.empty()) return lookup_->heap[0];
  uint32_t victim = 0;
  for (uint32_t j = 1; j < entries_.size(); ++j) {
    if (EvictsFirst(j, victim)) victim = j;
  }
  return victim;
}

void TopKSketch::SiftUp(size_t pos) {
  const uint32_t i = lookup_->heap[pos];
  while (pos > 0) {
    const size_t parent = (pos - 1) / 2;
    if (!EvictsFirst(i, lookup_->heap[parent])) break;
    Place(pos, lookup_->heap[parent]);
    pos = parent;
  }
  Place(pos, i);
}

void TopKSketch::SiftDown(size_t pos) {
  const std::vector<uint32_t>& heap = lookup_->heap;
  const uint32_t i = heap[pos];
  const size_t n = heap.size();
  for (;;) {
    size_t child = 2 * pos + 1;
    if (child >= n) break;
    if (child + 1 < n && EvictsFirst(heap[child + 1], heap[child])) ++child;
    if (!EvictsFirst(heap[child], i)) break;
    Place(pos, heap[child]);
    pos = child;
  }
  Place(pos, i);
}

void TopKSketch::BuildHeap() {
  const auto n = static_cast<uint32_t>(entries_.size());
  lookup_->heap.resize(n);
  lookup_->pos.resize(n);
  for (uint32_t i = 0; i < n; ++i) Place(i, i);
  for (size_t pos = n / 2; pos-- > 0;) SiftDown(pos);
}

void TopKSketch::Reindex() {
  if (entries_.size() <= kScanMax) {
    lookup_.reset();
    return;
  }
  lookup_ = std::make_unique<Lookup>();
  lookup_->index.reserve(entries_.size());
  for (uint32_t i = 0; i < entries_.size(); ++i) lookup_->index.emplace(entries_[i].value, i);
  if (entries_.size() >= capacity_) BuildHeap();
}

void TopKSketch::Add(std::string_view value) {
  const size_t i = Find(value);
  if (i < entries_.size()) {
    ++entries_[i].count;
    // A larger count only moves an entry away from the root.
    if (lookup_ && !lookup_->heap.empty()) SiftDown(lookup_->pos[i]);
    return;
  }
  if (entries_.size() < capacity_) {
    entries_.push_back(Entry{std::string(value), 1, 0});
    if (!lookup_) {
      if (entries_.size() > kScanMax) Reindex();
    } else {
      lookup_->index.emplace(value, static_cast<uint32_t>(i));
      if (entries_.size() == capacity_) BuildHeap();
    }
    return;
  }
  // The smallest count; among equal ones the largest value, so the order of ties never
  // depends on where an entry sits.
  const uint32_t victim = Victim();
  Entry& e = entries_[victim];
  if (lookup_) {
    auto node = lookup_->index.extract(e.value);
    node.key().assign(value);
    lookup_->index.insert(std::move(node));
  }
  e.error = e.count;
  e.count += 1;
  e.value.assign(value);
  if (lookup_) SiftDown(0);  // the root's count grew: it only moves down
}

void TopKSketch::Merge(const TopKSketch& o) {
  const bool full = entries_.size() >= capacity_, o_full = o.entries_.size() >= o.capacity_;
  const uint64_t floor = full ? MinCount() : 0, o_floor = o_full ? o.MinCount() : 0;
  std::vector<Entry> merged;
  merged.reserve(entries_.size() + o.entries_.size());
  std::vector<bool> taken(o.entries_.size(), false);
  for (const Entry& e : entries_) {
    Entry m = e;
    const size_t j = o.Find(e.value);
    if (j < o.entries_.size()) {
      m.count += o.entries_[j].count;
      m.error += o.entries_[j].error;
      taken[j] = true;
    } else {
      m.count += o_floor;
      m.error += o_floor;
    }
    merged.push_back(std::move(m));
  }
  for (size_t j = 0; j < o.entries_.size(); ++j) {
    if (taken[j]) continue;
    Entry m = o.entries_[j];
    m.count += floor;
    m.error += floor;
    merged.push_back(std::move(m));
  }
  std::sort(merged.begin(), merged.end(), [](const Entry& a, const Entry& b) {
    return a.count != b.count ? a.count > b.count : a.value < b.value;
  });
  if (merged.size() > capacity_) merged.resize(capacity_);
  entries_ = std::move(merged);
  Reindex();
}

std::vector<const TopKSketch::Entry*> TopKSketch::Top(size_t k) const {
  std::vector<const Entry*> top;
  top.reserve(entries_.size());
  for (const Entry& e : entries_) top.push_back(&e);
  std::sort(top.begin(), top.end(), [](const Entry* a, const Entry* b) {
    return a->count != b->count ? a->count > b->count : a->value < b->value;
  });
  if (top.size() > k) top.resize(k);
  return top;
}

void TopKSketch::Snapshot(ByteWriter* w) const {
  std::vector<const Entry*> sorted;
  for (const Entry& e : entries_) sorted.push_back(&e);
  std::sort(sorted.begin(), sorted.end(),
            [](const Entry* a, const Entry* b) { return a->value < b->value; });
  w->U8(1);
  w->U32(static_cast<uint32_t>(sorted.size()));
  for (const Entry* e : sorted) {
    w->Bytes(e->value);
    w->U64(e->count);
    w->U64(e->error);
  }
}

bool TopKSketch::Restore(ByteReader* r) {
  entries_.clear();
  std::vector<Entry> entries;
  if (r->U8() != 1) r->Fail();
  const uint32_t n = r->U32();
  if (n > capacity_) r->Fail();
  for (uint32_t i = 0; i < n && r->ok(); ++i) {
    Entry e;
    e.value.assign(r->Bytes());
    e.count = r->U64();
    e.error = r->U64();
    // Sorted by value without repeats; an error never exceeds its count, which is >= 1.
    if (e.count == 0 || e.error >= e.count) r->Fail();
    if (!entries.empty() && e.value <= entries.back().value) r->Fail();
    entries.push_back(std::move(e));
  }
  if (!r->ok()) {
    Reindex();
    return false;
  }
  entries_ = std::move(entries);
  Reindex();
  return true;
}

}  // namespace logtide
