// The sketches against exact answers: every quantile within 1% of the exact value of its rank
// on adversarial distributions, distinct counts exact while sparse and within a few standard
// errors past that, top-k counts inside their error bounds; merges of parts byte-equal to the
// sketch of the union.
#include "agg/sketches.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace logtide {
namespace {

// A million values; a tenth under the sanitizers, where the regular build's run covers the rest.
#ifdef LOGTIDE_SANITIZED
constexpr size_t kMillion = 100000;
#else
constexpr size_t kMillion = 1000000;
#endif

std::string Bytes(const QuantileSketch& s) {
  std::string b;
  ByteWriter w(&b);
  s.Snapshot(&w);
  return b;
}
std::string Bytes(const DistinctSketch& s) {
  std::string b;
  ByteWriter w(&b);
  s.Snapshot(&w);
  return b;
}

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
}

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

// Space-Saving as TopKSketch computed it before its heap (issue 28, item 10), kept as the
// obviously right reference: every Add scans all counters, for the value and then for the
// victim (the smallest count, ties the largest value). Merge, Top and the byte form are the
// same rules, written out plainly.
class NaiveTopK {
 public:
  explicit NaiveTopK(size_t capacity) : capacity_(capacity) {}
  void Add(std::string_view value) {
    const size_t i = Find(value);
    if (i < entries_.size()) {
      ++entries_[i].count;
      return;
    }
    if (entries_.size() < capacity_) {
      entries_.push_back(TopKSketch::Entry{std::string(value), 1, 0});
      return;
    }
    size_t victim = 0;
    for (size_t j = 1; j < entries_.size(); ++j) {
      const TopKSketch::Entry& e = entries_[j];
      const TopKSketch::Entry& v = entries_[victim];
      if (e.count < v.count || (e.count == v.count && e.value > v.value)) victim = j;
    }
    TopKSketch::Entry& e = entries_[victim];
    e.error = e.count;
    e.count += 1;
    e.value.assign(value);
  }
  void Merge(const NaiveTopK& o) {
    const bool full = entries_.size() >= capacity_, o_full = o.entries_.size() >= o.capacity_;
    const uint64_t floor = full ? MinCount() : 0, o_floor = o_full ? o.MinCount() : 0;
    std::vector<TopKSketch::Entry> merged;
    std::vector<bool> taken(o.entries_.size(), false);
    for (const TopKSketch::Entry& e : entries_) {
      TopKSketch::Entry m = e;
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
      TopKSketch::Entry m = o.entries_[j];
      m.count += floor;
      m.error += floor;
      merged.push_back(std::move(m));
    }
    std::sort(merged.begin(), merged.end(), ByCountThenValue);
    if (merged.size() > capacity_) merged.resize(capacity_);
    entries_ = std::move(merged);
  }
  // Every counter as "value count error" lines, largest count first, ties by value.
  std::string Rendered() const {
    std::vector<TopKSketch::Entry> sorted = entries_;
    std::sort(sorted.begin(), sorted.end(), ByCountThenValue);
    std::string out;
    for (const TopKSketch::Entry& e : sorted) {
      out += e.value + " " + std::to_string(e.count) + " " + std::to_string(e.error) + "\n";
    }
    return out;
  }
  std::string Bytes() const {
    std::vector<TopKSketch::Entry> sorted = entries_;
    std::sort(sorted.begin(), sorted.end(),
              [](const auto& a, const auto& b) { return a.value < b.value; });
    std::string b;
    ByteWriter w(&b);
    w.U8(1);
    w.U32(static_cast<uint32_t>(sorted.size()));
    for (const TopKSketch::Entry& e : sorted) {
      w.Bytes(e.value);
      w.U64(e.count);
      w.U64(e.error);
    }
    return b;
  }

 private:
  static bool ByCountThenValue(const TopKSketch::Entry& a, const TopKSketch::Entry& b) {
    return a.count != b.count ? a.count > b.count : a.value < b.value;
  }
  size_t Find(std::string_view value) const {
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].value == value) return i;
    }
    return entries_.size();
  }
  uint64_t MinCount() const {
    uint64_t m = std::numeric_limits<uint64_t>::max();
    for (const TopKSketch::Entry& e : entries_) m = std::min(m, e.count);
    return m;
  }
  size_t capacity_;
  std::vector<TopKSketch::Entry> entries_;
};

std::string Rendered(const TopKSketch& s, size_t k) {
  std::string out;
  for (const TopKSketch::Entry* e : s.Top(k)) {
    out += e->value + " " + std::to_string(e->count) + " " + std::to_string(e->error) + "\n";
  }
  return out;
}
std::string Bytes(const TopKSketch& s) {
  std::string b;
  ByteWriter w(&b);
  s.Snapshot(&w);
  return b;
}
// The first k lines of NaiveTopK::Rendered.
std::string FirstLines(const std::string& text, size_t k) {
  size_t end = 0;
  for (size_t i = 0; i < k && end < text.size(); ++i) end = text.find('\n', end) + 1;
  return text.substr(0, end);
}

TEST_CASE("top-k sketch: exact while the values fit, bounded past that") {
  // 50 distinct values fit in 64 counters: exact counts, errors 0, in any order.
  std::vector<std::string> stream;
  for (int v = 0; v < 50; ++v) {
    for (int c = 0; c <= v; ++c) stream.push_back("v" + std::to_string(v));
  }
  std::shuffle(stream.begin(), stream.end(), std::mt19937_64(1));
  TopKSketch s(TopKSketch::CapacityFor(3));
  for (const std::string& x : stream) s.Add(x);
  auto top = s.Top(3);
  REQUIRE(top.size() == 3);
  CHECK(top[0]->value == "v49");
  CHECK(top[0]->count == 50);
  CHECK(top[2]->value == "v47");
  CHECK(top[2]->error == 0);

  // Zipf-like over 5,000 values: every kept count brackets the true one, the error is at most
  // N / capacity, and the true top 10 are all kept.
  std::mt19937_64 rng(2);
  std::map<std::string, uint64_t> truth;
  TopKSketch z(TopKSketch::CapacityFor(10));
  const size_t n = kMillion / 5;
  for (size_t i = 0; i < n; ++i) {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    const auto rank = static_cast<int>(std::pow(5000.0, u));  // heavy head
    const std::string v = "k" + std::to_string(rank);
    ++truth[v];
    z.Add(v);
  }
  std::vector<std::pair<uint64_t, std::string>> exact;
  for (const auto& [v, c] : truth) exact.push_back({c, v});
  std::sort(exact.rbegin(), exact.rend());
  auto kept = z.Top(z.capacity());
  for (const auto* e : kept) {
    const uint64_t t = truth[e->value];
    INFO(e->value << " true " << t << " count " << e->count << " error " << e->error);
    CHECK(t <= e->count);
    CHECK(e->count - e->error <= t);
    CHECK(e->error <= n / z.capacity());
  }
  for (int i = 0; i < 10; ++i) {
    const bool found = std::any_of(kept.begin(), kept.end(),
                                   [&](const auto* e) { return e->value == exact[i].second; });
    CHECK(found);
  }

  // Merge: commutative, and the bound survives.
  TopKSketch a(z.capacity()), b(z.capacity());
  std::mt19937_64 rng2(3);
  std::map<std::string, uint64_t> truth2;
  for (size_t i = 0; i < n; ++i) {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng2);
    const std::string v = "k" + std::to_string(static_cast<int>(std::pow(5000.0, u)));
    ++truth2[v];
    (i % 3 ? a : b).Add(v);
  }
  TopKSketch ab = a, ba = b;
  ab.Merge(b);
  ba.Merge(a);
  std::string x, y;
  ByteWriter wx(&x), wy(&y);
  ab.Snapshot(&wx);
  ba.Snapshot(&wy);
  CHECK(x == y);
  for (const auto* e : ab.Top(ab.capacity())) {
    const uint64_t t = truth2[e->value];
    CHECK(t <= e->count);
    CHECK(e->count - e->error <= t);
  }

  // Byte form: reads back; unsorted or impossible entries are refused.
  TopKSketch back(z.capacity());
  std::string bytes;
  ByteWriter w(&bytes);
  z.Snapshot(&w);
  ByteReader r(bytes);
  REQUIRE(back.Restore(&r));
  CHECK(r.at_end());
  std::string again;
  ByteWriter w2(&again);
  back.Snapshot(&w2);
  CHECK(again == bytes);
  std::string bad;
  ByteWriter wb(&bad);
  wb.U8(1);
  wb.U32(1);
  wb.Bytes("x");
  wb.U64(3);
  wb.U64(3);  // error == count: impossible
  ByteReader rb(bad);
  CHECK_FALSE(back.Restore(&rb));
}

// Issue 28, item 10: the heap must pick exactly the victim the scan picked, or results change.
// Streams over few values (many equal counts, so the tie rule decides) and over many (evictions
// on every add), for the capacities of K = 1, 2, 10 and 1000 and for tiny ones; with merges of
// full and unfull sketches, byte round trips and copies between adds.
TEST_CASE("top-k sketch: the same counters, results and bytes as the scanning version") {
#ifdef LOGTIDE_SANITIZED
  const size_t scale = 10;
#else
  const size_t scale = 1;
#endif
  // Up to kScanMax counters are scanned, past that looked up: capacities on both sides.
  const std::vector<size_t> capacities = {1,
                                          2,
                                          3,
                                          5,
                                          TopKSketch::kScanMax,
                                          TopKSketch::kScanMax + 1,
                                          TopKSketch::CapacityFor(1),
                                          TopKSketch::CapacityFor(2),
                                          TopKSketch::CapacityFor(10),
                                          TopKSketch::CapacityFor(1000)};
  std::mt19937_64 rng(28);
  for (const size_t capacity : capacities) {
    for (const size_t alphabet : {capacity / 2 + 1, capacity + 1, 3 * capacity, 40 * capacity}) {
      INFO("capacity " << capacity << " alphabet " << alphabet);
      const size_t n = std::min<size_t>(20 * alphabet, 60000 / scale);
      // Skewed: value i with weight about 1/(i+1), some values long enough to be on the heap.
      auto draw = [&] {
        const double u = std::uniform_real_distribution<double>(0, 1)(rng);
        const auto i = static_cast<size_t>(std::pow(static_cast<double>(alphabet), u)) - 1;
        return (i % 7 == 0 ? "long-value-past-the-small-string-buffer-" : "v") + std::to_string(i);
      };
      TopKSketch fast(capacity), part(capacity);
      NaiveTopK naive(capacity), naive_part(capacity);
      for (int round = 0; round < 4; ++round) {
        for (size_t i = 0; i < n / 4; ++i) {
          const std::string v = draw();
          if (i % 5 == round) {
            part.Add(v);
            naive_part.Add(v);
          } else {
            fast.Add(v);
            naive.Add(v);
          }
        }
        const std::string expected = naive.Rendered();
        REQUIRE(Rendered(fast, capacity) == expected);
        for (const size_t k : {size_t{1}, size_t{2}, size_t{10}}) {
          CHECK(Rendered(fast, k) == FirstLines(expected, k));
        }
        REQUIRE(Bytes(fast) == naive.Bytes());
        REQUIRE(Bytes(part) == naive_part.Bytes());
        if (round == 1) {  // merge the part in, then keep adding to the merged sketch
          fast.Merge(part);
          naive.Merge(naive_part);
          REQUIRE(Rendered(fast, capacity) == naive.Rendered());
          REQUIRE(Bytes(fast) == naive.Bytes());
        }
        if (round == 2) {  // the part takes the main sketch in, the other way round
          part.Merge(fast);
          naive_part.Merge(naive);
          REQUIRE(Bytes(part) == naive_part.Bytes());
        }
        // Through bytes and back; later adds go to the restored sketch.
        TopKSketch back(capacity);
        const std::string bytes = Bytes(fast);
        ByteReader r(bytes);
        REQUIRE(back.Restore(&r));
        CHECK(r.at_end());
        fast = back;
      }
      // A copy is independent of its original (copies seed every slot of a column).
      TopKSketch copy = fast;
      NaiveTopK naive_copy = naive;
      for (size_t i = 0; i < n / 4; ++i) {
        const std::string v = draw();
        copy.Add(v);
        naive_copy.Add(v);
      }
      CHECK(Bytes(copy) == naive_copy.Bytes());
      CHECK(Bytes(fast) == naive.Bytes());
    }
  }
}

}  // namespace
}  // namespace logtide
