#include "agg/distinct_sketch.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace logtide {

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

void DistinctSketch::Describe(StateCodec* c) {
  if (c->U8("version") != 1) return c->Fail("a distinct sketch of a version this logtide does not write");
  const uint64_t form = c->U8("form");
  if (form == 0) {
    const uint64_t n = c->List("hashes");
    for (uint64_t i = 0; i < n && c->ok(); ++i) c->U64("");
    c->End();
  } else if (form == 1) {
    c->Hex("registers", kRegisters / 4 * 3);
  } else {
    c->Fail("a distinct sketch of an unknown form");
  }
}

}  // namespace logtide
