// QuantileSketch: quantiles of many numbers with relative value error <= 1% in bounded memory
// (DDSketch: log-sized buckets), mergeable, with a versioned byte form. The state of the
// quantile aggregates (accumulators.cc; agg/sketches.h lists every sketch).
#pragma once

#include <cstdint>
#include <vector>

#include "util/bytes.h"
#include "util/state_codec.h"

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
  // Describes Snapshot's form field by field (util/state_codec.h).
  static void Describe(StateCodec* c);

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

}  // namespace logtide
