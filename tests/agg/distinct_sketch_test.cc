// The distinct sketch against exact answers: distinct counts exact while sparse and within a few
// standard errors past that; merges of parts byte-equal to the sketch of the union.
#include "agg/distinct_sketch.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "agg/sketch_test_sizes.h"

namespace logtide {
namespace {

std::string Bytes(const DistinctSketch& s) { return SketchBytes(s); }

uint64_t Hash(uint64_t i) {
  // splitmix64: distinct inputs give distinct, well-mixed hashes.
  uint64_t z = i + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

TEST_CASE("distinct sketch: exact while sparse, within 3% past it, merges equal the union") {
  for (uint64_t n : {uint64_t{1}, uint64_t{10}, uint64_t{1000}, uint64_t{1024}, uint64_t{1025},
                     uint64_t{5000}, uint64_t{100000}, uint64_t{kMillion}}) {
    DistinctSketch s;
    for (uint64_t i = 0; i < n; ++i) {
      s.AddHash(Hash(i));
      if (i % 3 == 0) s.AddHash(Hash(i));  // repeats change nothing
    }
    INFO("n=" << n << " estimate=" << s.Estimate());
    if (n <= DistinctSketch::kSparseMax) {
      CHECK_FALSE(s.dense());
      CHECK(s.Estimate() == n);
    } else {
      CHECK(s.dense());
      // Standard error 0.81%: 3% is 3.7 of them.
      CHECK(std::abs(static_cast<double>(s.Estimate()) - n) <= 0.03 * n);
    }
  }
  // Over 20 independent sets of 200,000, the root-mean-square error is near 0.81%.
  double sq = 0;
  const uint64_t size = kMillion / 5;
  for (uint64_t set = 0; set < 20; ++set) {
    DistinctSketch s;
    for (uint64_t i = 0; i < size; ++i) s.AddHash(Hash(set << 40 | i));
    const double e = (static_cast<double>(s.Estimate()) - size) / size;
    sq += e * e;
  }
  const double rmse = std::sqrt(sq / 20);
  INFO("rmse " << rmse);
  CHECK(rmse < 0.016);

  // Parts (some sparse, some dense) merged in any order give the union's bytes.
  for (uint64_t n : {500, 3000, 50000}) {
    DistinctSketch whole;
    std::vector<DistinctSketch> parts(5);
    for (uint64_t i = 0; i < n; ++i) {
      whole.AddHash(Hash(i % (n / 2 + 1)));
      parts[(i * 7) % 5].AddHash(Hash(i % (n / 2 + 1)));
    }
    DistinctSketch a, b;
    for (int i = 0; i < 5; ++i) a.Merge(parts[i]);
    for (int i = 4; i >= 0; --i) b.Merge(parts[i]);
    INFO("n=" << n);
    CHECK(Bytes(a) == Bytes(whole));
    CHECK(Bytes(b) == Bytes(whole));
  }
}

TEST_CASE("distinct sketch: the byte form reads back, compactly, and damage is refused") {
  DistinctSketch small;
  for (uint64_t i = 0; i < 12; ++i) small.AddHash(Hash(i));
  CHECK(Bytes(small).size() == 2 + 4 + 12 * 8);  // 12 values cost bytes, not kilobytes
  DistinctSketch big;
  for (uint64_t i = 0; i < 100000; ++i) big.AddHash(Hash(i));
  const std::string bytes = Bytes(big);
  CHECK(bytes.size() == 2 + DistinctSketch::kRegisters * 3 / 4);
  for (const DistinctSketch* s : {&small, &big}) {
    const std::string b = Bytes(*s);
    DistinctSketch back;
    ByteReader r(b);
    REQUIRE(back.Restore(&r));
    CHECK(r.at_end());
    CHECK(back.Estimate() == s->Estimate());
    CHECK(Bytes(back) == b);
  }
  // Unsorted sparse hashes and registers past 51 are refused.
  std::string bad;
  ByteWriter w(&bad);
  w.U8(1);
  w.U8(0);
  w.U32(2);
  w.U64(5);
  w.U64(3);
  ByteReader r(bad);
  DistinctSketch d;
  CHECK_FALSE(d.Restore(&r));
  std::string regs = bytes;
  regs[2] = static_cast<char>(0x3F);  // register 0 = 63
  ByteReader r2(regs);
  CHECK_FALSE(d.Restore(&r2));
}

}  // namespace
}  // namespace logtide
