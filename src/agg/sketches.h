// Sketches: fixed-error summaries of many values in bounded memory, mergeable, and serialisable
// to a compact versioned byte form. Each is the state of one aggregate (accumulators.cc):
//   QuantileSketch   quantiles with relative value error <= 1% (DDSketch: log-sized buckets)
//   DistinctSketch   distinct counts with standard error ~0.8% (HyperLogLog, 2^14 registers,
//                    exact below kSparseMax values)
//   TopKSketch       the most frequent values with an overestimate bound (Space-Saving)
// None reads a clock, a hash seed or an address: equal inputs give equal states and bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/bytes.h"

namespace logtide {

// Up to kExactMax values are kept as they are, and quantiles of them are exact. Past that,
// DDSketch (Masson, Rim, Lee, VLDB 2019): a positive value x goes to bucket
// i = ceil(log_g(x)) with g = (1+a)/(1-a), a bucket reports 2 g^i / (g+1), which is within a of
// every value in (g^(i-1), g^i]; negative values go to a mirrored store, zero to its own count.
// Each store keeps at most kMaxBuckets consecutive buckets (a ratio of about 10^17 between the
// largest and smallest magnitude of one sign); beyond that the smallest magnitudes are merged
// into the smallest kept bucket and lose the guarantee: the tails that matter keep it. Which
// bucket a value ends in depends only on the set of values, so the state (exact or bucketed) is
// independent of the order of adds and merges.
// The 0-based rank of the q-quantile of n values in ascending order by the nearest-rank rule,
// as SQL's percentile_disc: the first value whose cumulative share reaches q, ceil(q n) - 1,
// and 0 for q = 0. REQUIRES: n > 0, 0 <= q <= 1.
uint64_t QuantileRank(double q, uint64_t n);

class QuantileSketch {
 public:
  // The guarantee is 1%; buckets are built for 0.99% so that rounding in log() at a bucket's
  // edge cannot push an estimate past 1%.
  static constexpr double kRelativeError = 0.01;
  static constexpr int32_t kMaxBuckets = 2048;
  static constexpr size_t kExactMax = 64;

  // Adds a finite number. REQUIRES: std::isfinite(x).
  void Add(double x);
  void Merge(const QuantileSketch& o);
  uint64_t count() const {
    return bucketed_ ? neg_.total + zero_ + pos_.total : exact_.size();
  }
  // The value of rank QuantileRank(q, count()): the lower of the two middle values for the
  // median of an even count, the largest value for p99 of up to 100 values. Exact for up to kExactMax
  // values; past that, ranks 0 and count-1 give the exact min and max, others a bucket's value
  // to 6 significant digits, kept within [min, max]. REQUIRES: count() > 0, 0 <= q <= 1.
  double Quantile(double q) const;
  // Bytes of memory held (buckets allocated), for tests of the bound.
  size_t bucket_bytes() const { return (pos_.counts.capacity() + neg_.counts.capacity()) * 8; }
  bool bucketed() const { return bucketed_; }

  // Form (version 1): u8 1, then u8 0, u32 n and the n values as f64, ascending (exact); or
  // u8 1, u64 zero count, f64 min, f64 max, then the positive and the negative store, each u32 n
  // (buckets from its smallest to its largest nonzero one) and when n > 0 an i32 first index
  // and n counts as LEB128 varints (bucketed, for more than kExactMax values).
  void Snapshot(ByteWriter* w) const;
  // Returns false, leaving the sketch empty, on a form this code did not write.
  bool Restore(ByteReader* r);

  bool operator==(const QuantileSketch& o) const;

 private:
  struct Store {
    int32_t base = 0;              // index of counts[0]
    std::vector<uint64_t> counts;  // allocated buckets, with room to grow on either side
    int32_t lo = 0, hi = -1;       // smallest and largest nonzero bucket; empty when total 0
    uint64_t total = 0;
    void Add(int32_t index, uint64_t n);
    void Reserve(int32_t a, int32_t b);
    uint64_t at(int32_t index) const { return counts[static_cast<size_t>(index - base)]; }
  };
  static int32_t Index(double magnitude);
  static double Estimate(int32_t index);
  void AddToBuckets(double x, uint64_t n);
  void ToBuckets();

  bool bucketed_ = false;
  std::vector<double> exact_;  // ascending, while !bucketed_
  Store pos_, neg_;
  uint64_t zero_ = 0;
  double min_ = 0, max_ = 0;  // meaningful when count() > 0
};

// HyperLogLog with Ertl's improved estimator (arXiv:1702.01284), over 64-bit hashes of values.
// While it holds at most kSparseMax distinct hashes it keeps them (sorted) and its count is
// exact; past that, 2^14 one-byte registers (16 KiB; standard error 1.04/128 = 0.81%). The state
// is a function of the set of hashes added, so merges are associative and commutative and a
// merge of parts is byte-equal to the sketch of their union.
class DistinctSketch {
 public:
  static constexpr int kPrecision = 14;
  static constexpr uint32_t kRegisters = 1u << kPrecision;
  static constexpr size_t kSparseMax = 1024;

  void AddHash(uint64_t h);
  void Merge(const DistinctSketch& o);
  // The estimated number of distinct hashes (exact while sparse).
  uint64_t Estimate() const;
  bool dense() const { return !registers_.empty(); }

  // Form (version 1): u8 1, u8 0 then u32 n and n sorted u64 hashes (sparse), or u8 1 then the
  // 2^14 registers packed four to three bytes (6 bits each, values 0..51).
  void Snapshot(ByteWriter* w) const;
  bool Restore(ByteReader* r);
  bool operator==(const DistinctSketch& o) const {
    return sparse_ == o.sparse_ && registers_ == o.registers_;
  }

 private:
  void ToDense();
  void AddDense(uint64_t h);
  std::vector<uint64_t> sparse_;
  std::vector<uint8_t> registers_;
};

// Space-Saving (Metwally, Agrawal, El Abbadi 2005) over values given as their key encoding
// (json/value.h EncodeValue). It keeps at most capacity() counters; a value not kept that
// arrives takes the counter with the smallest count c (ties: the largest value) and starts at
// c + 1 with error c. Every kept count overestimates the value's true count by at most its
// error, and any value not kept occurred at most min-count times. While no more than
// capacity() distinct values were seen, counts are exact and errors 0.
// Merge adds counts value by value; a value missing from a full summary is taken at that
// summary's smallest count (added to its error too), and the capacity() largest survive. It is
// commutative; it is associative while the summaries merged hold every value they saw (no
// eviction happened), and otherwise keeps the bound above.
// Add costs O(log capacity()) past kScanMax counters (a hash lookup, and once full a binary
// heap ordered as the eviction rule orders counters); up to kScanMax it scans them, which is as
// fast and keeps a summary of few values (one per group, often) as small as a vector.
// Merge costs O(n log n) in the counters of both sides.
class TopKSketch {
 public:
  struct Entry {
    std::string value;  // key encoding
    uint64_t count = 0;
    uint64_t error = 0;
  };
  // Counters kept for K results: max(10 K, 64).
  static size_t CapacityFor(uint32_t k);
  static constexpr size_t kScanMax = 32;

  // REQUIRES: capacity >= 1.
  explicit TopKSketch(size_t capacity = 64) : capacity_(capacity) {}
  TopKSketch(const TopKSketch& o);
  TopKSketch& operator=(const TopKSketch& o);
  TopKSketch(TopKSketch&&) noexcept = default;
  TopKSketch& operator=(TopKSketch&&) noexcept = default;
  ~TopKSketch() = default;

  size_t capacity() const { return capacity_; }
  void Add(std::string_view value);
  void Merge(const TopKSketch& o);
  // The k entries with the largest counts, ties by value ascending. The pointers are valid
  // until the next call of a non-const method.
  std::vector<const Entry*> Top(size_t k) const;
  size_t size() const { return entries_.size(); }
  // Whether every kept value passes `ok` (for values restored from a state file).
  template <class Pred>
  bool ValuesAre(Pred ok) const {
    for (const Entry& e : entries_) {
      if (!ok(e.value)) return false;
    }
    return true;
  }

  // Form (version 1): u8 1, u32 n, then n entries: bytes value, u64 count, u64 error, sorted
  // by value.
  void Snapshot(ByteWriter* w) const;
  bool Restore(ByteReader* r);

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view v) const { return std::hash<std::string_view>()(v); }
  };
  // Lookups for more than kScanMax counters. Indices only, so a copy is valid as it is.
  struct Lookup {
    std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> index;  // value -> entry
    // While full (no eviction happens before): the entries' indices as a binary min-heap by
    // EvictsFirst, heap[0] the next victim, and pos[i] the place of entry i in it.
    std::vector<uint32_t> heap, pos;
  };
  // Whether entries_[a] is evicted before entries_[b]: the smaller count, ties the larger value.
  bool EvictsFirst(uint32_t a, uint32_t b) const {
    const Entry& x = entries_[a];
    const Entry& y = entries_[b];
    return x.count != y.count ? x.count < y.count : x.value > y.value;
  }
  // The index of `value` in entries_, or size() when it is not kept.
  size_t Find(std::string_view value) const;
  // The index of the next counter to evict. REQUIRES: size() > 0.
  uint32_t Victim() const;
  uint64_t MinCount() const { return entries_[Victim()].count; }  // REQUIRES: size() > 0
  void SiftUp(size_t pos);
  void SiftDown(size_t pos);
  void Place(size_t pos, uint32_t i) {
    lookup_->heap[pos] = i;
    lookup_->pos[i] = static_cast<uint32_t>(pos);
  }
  // Rebuilds lookup_ from entries_: none for up to kScanMax of them, else the index, and the
  // heap when full.
  void Reindex();
  void BuildHeap();

  size_t capacity_;
  // The counters, in no meaningful order: results and bytes depend only on their values,
  // counts and errors. An entry keeps its index until Merge or Restore replaces them all.
  std::vector<Entry> entries_;
  std::unique_ptr<Lookup> lookup_;  // set exactly when size() > kScanMax
};

}  // namespace logtide
