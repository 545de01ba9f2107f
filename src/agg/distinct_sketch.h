// DistinctSketch: distinct counts with standard error ~0.8% in 16 KiB at most (HyperLogLog,
// 2^14 registers, exact below kSparseMax values), mergeable, with a versioned byte form. The
// state of approx_count_distinct (accumulators.cc; agg/sketches.h lists every sketch).
#pragma once

#include <cstdint>
#include <vector>

#include "util/bytes.h"
#include "util/state_codec.h"

namespace logtide {

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
  // Describes Snapshot's form field by field (util/state_codec.h).
  static void Describe(StateCodec* c);
  bool operator==(const DistinctSketch& o) const {
    return sparse_ == o.sparse_ && registers_ == o.registers_;
  }

 private:
  void ToDense();
  void AddDense(uint64_t h);
  std::vector<uint64_t> sparse_;
  std::vector<uint8_t> registers_;
};

}  // namespace logtide
