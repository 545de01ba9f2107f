// The quantile sketch against exact answers: every quantile within 1% of the exact value of its
// rank on adversarial distributions; merges of parts byte-equal to the sketch of the union.
#include "agg/quantile_sketch.h"

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

std::string Bytes(const QuantileSketch& s) { return SketchBytes(s); }

// Values drawn from one named distribution, with a fixed seed.
std::vector<double> Draw(const std::string& dist, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> v;
  v.reserve(n);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::lognormal_distribution<double> lognormal(3.0, 1.5);  // latencies in ms: median ~20
  std::normal_distribution<double> normal(0.0, 1.0);
  for (size_t i = 0; i < n; ++i) {
    double x = 0;
    if (dist == "uniform") {
      x = unit(rng) * 1000;
    } else if (dist == "lognormal") {
      x = lognormal(rng);
    } else if (dist == "pareto") {
      x = 1.0 / std::pow(1.0 - unit(rng), 1.0 / 1.1);  // alpha 1.1: huge tail
    } else if (dist == "constant") {
      x = 42.5;
    } else if (dist == "clusters") {
      x = (i % 2 ? 1e-6 : 1e9) * (1 + 0.1 * unit(rng));  // two clusters 15 decades apart
    } else if (dist == "negative") {
      x = -lognormal(rng);
    } else if (dist == "mixed-sign") {
      x = normal(rng) * 100;  // around zero, both signs
    } else if (dist == "integers") {
      x = std::floor(unit(rng) * 500);  // 0 to 499, many repeats and zeros
    }
    v.push_back(x);
  }
  return v;
}

const std::vector<std::string> kDistributions = {"uniform",  "lognormal", "pareto",
                                                 "constant", "clusters",  "negative",
                                                 "mixed-sign", "integers"};
const std::vector<double> kQuantiles = {0,   0.001, 0.01, 0.1,  0.25,  0.5,
                                        0.75, 0.9,  0.95, 0.99, 0.999, 1};

TEST_CASE("quantile sketch: every quantile within 1% of the exact value of its rank") {
  for (const std::string& dist : kDistributions) {
    for (size_t n : {size_t{1}, size_t{10}, size_t{1000}, kMillion}) {
      std::vector<double> values = Draw(dist, n, 7 + n);
      QuantileSketch s;
      for (double x : values) s.Add(x);
      REQUIRE(s.count() == n);
      std::sort(values.begin(), values.end());
      for (double q : kQuantiles) {
        const double exact = values[QuantileRank(q, n)];
        const double est = s.Quantile(q);
        INFO(dist << " n=" << n << " q=" << q << " exact=" << exact << " estimate=" << est);
        CHECK(std::abs(est - exact) <= 0.01 * std::abs(exact));
        if (n <= QuantileSketch::kExactMax) CHECK(est == exact);  // kept exactly
      }
      CHECK(s.Quantile(0) == values.front());
      CHECK(s.Quantile(1) == values.back());
      // Bounded: at most 2048 buckets a sign (and the slack Reserve leaves).
      CHECK(s.bucket_bytes() <= 2 * 3 * 2048 * 8);
    }
  }
}

TEST_CASE("quantile sketch: the state does not depend on the order of adds or on merges") {
  for (const std::string& dist : kDistributions) {
    std::vector<double> values = Draw(dist, 20000, 99);
    QuantileSketch whole;
    for (double x : values) whole.Add(x);

    std::vector<double> shuffled = values;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(5));
    QuantileSketch reordered;
    for (double x : shuffled) reordered.Add(x);
    CHECK(Bytes(reordered) == Bytes(whole));

    // k parts merged left to right, right to left, and as a tree: byte-equal to the union.
    const int k = 7;
    std::vector<QuantileSketch> parts(k);
    std::mt19937_64 pick(11);
    for (double x : values) parts[pick() % k].Add(x);
    QuantileSketch left, right;
    for (int i = 0; i < k; ++i) left.Merge(parts[i]);
    for (int i = k - 1; i >= 0; --i) right.Merge(parts[i]);
    QuantileSketch a = parts[0], b = parts[4];
    for (int i = 1; i < 4; ++i) a.Merge(parts[i]);
    for (int i = 5; i < k; ++i) b.Merge(parts[i]);
    b.Merge(a);
    INFO(dist);
    CHECK(Bytes(left) == Bytes(whole));
    CHECK(Bytes(right) == Bytes(whole));
    CHECK(Bytes(b) == Bytes(whole));
  }
}

TEST_CASE("quantile sketch: small parts (exact) merge into the union's buckets, byte for byte") {
  for (size_t n : {size_t{30}, size_t{64}, size_t{65}, size_t{200}}) {
    std::vector<double> values = Draw("mixed-sign", n, n);
    values.push_back(-0.0);
    values.push_back(0.0);
    QuantileSketch whole;
    for (double x : values) whole.Add(x);
    CHECK(whole.bucketed() == (values.size() > QuantileSketch::kExactMax));
    std::vector<QuantileSketch> parts(9);
    for (size_t i = 0; i < values.size(); ++i) parts[(i * 5) % 9].Add(values[i]);
    QuantileSketch left, right;
    for (int i = 0; i < 9; ++i) left.Merge(parts[i]);
    for (int i = 8; i >= 0; --i) right.Merge(parts[i]);
    INFO("n=" << values.size());
    CHECK(Bytes(left) == Bytes(whole));
    CHECK(Bytes(right) == Bytes(whole));
  }
}

TEST_CASE("quantile sketch: a range too wide for its buckets collapses the smallest values") {
  // 1e-300 .. 1e300 spans ~69,000 buckets: the top 2048 (a factor ~1.5e17) keep the guarantee.
  std::vector<double> values;
  for (int e = -300; e <= 300; ++e) values.push_back(std::pow(10.0, e));
  QuantileSketch s, reversed;
  for (double x : values) s.Add(x);
  for (auto it = values.rbegin(); it != values.rend(); ++it) reversed.Add(*it);
  CHECK(Bytes(s) == Bytes(reversed));
  const size_t n = values.size();
  for (double q : {0.999, 0.99, 0.98}) {  // ranks 600, 594, 588: 1e300, 1e294, 1e288
    const double exact = values[QuantileRank(q, n)];
    CHECK(std::abs(s.Quantile(q) - exact) <= 0.01 * exact);
  }
  // The smallest values went into the lowest kept bucket: far above them, but within [min, max].
  const double low = s.Quantile(0.01);
  CHECK(low > values[6]);
  CHECK(low >= s.Quantile(0));
  CHECK(s.bucket_bytes() <= 2 * 3 * 2048 * 8);
}

TEST_CASE("quantile sketch: the byte form reads back and damage is refused") {
  QuantileSketch s;
  for (double x : Draw("mixed-sign", 5000, 3)) s.Add(x);
  s.Add(0);
  const std::string bytes = Bytes(s);
  QuantileSketch back;
  ByteReader r(bytes);
  REQUIRE(back.Restore(&r));
  CHECK(r.at_end());
  CHECK(Bytes(back) == bytes);
  CHECK(back.Quantile(0.5) == s.Quantile(0.5));

  QuantileSketch empty;
  const std::string empty_bytes = Bytes(empty);
  CHECK(empty_bytes.size() == 1 + 1 + 4);  // the exact form, with no values

  // Every truncation fails; no flip of a byte crashes, and a restored sketch is sane.
  for (size_t len = 0; len < bytes.size(); ++len) {
    ByteReader t(std::string_view(bytes).substr(0, len));
    QuantileSketch q;
    CHECK_FALSE(q.Restore(&t));
  }
  for (size_t i = 0; i < bytes.size(); i += 7) {
    std::string bad = bytes;
    bad[i] ^= 0x5A;
    ByteReader t(bad);
    QuantileSketch q;
    if (q.Restore(&t) && q.count() > 0) {
      const double v = q.Quantile(0.5);
      CHECK(std::isfinite(v));
    }
  }
  // A bucket run longer than the bound is refused.
  std::string wide;
  ByteWriter w(&wide);
  w.U8(1);
  w.U8(1);
  w.U64(0);
  w.F64(1);
  w.F64(2);
  w.U32(5000);
  w.U32(0);
  ByteReader t(wide);
  QuantileSketch q;
  CHECK_FALSE(q.Restore(&t));
  // More exact values than the exact form holds: refused, not read (its bounds came from the
  // first and last value read, of none).
  std::string many;
  ByteWriter m(&many);
  m.U8(1);
  m.U8(0);
  m.U32(65);
  for (int i = 0; i < 65; ++i) m.F64(i);
  ByteReader mt(many);
  CHECK_FALSE(q.Restore(&mt));
}

}  // namespace
}  // namespace logtide
