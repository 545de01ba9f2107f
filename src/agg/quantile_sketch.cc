#include "agg/quantile_sketch.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace logtide {
namespace {

// Buckets are built for 0.99% (see kRelativeError).
constexpr double kBucketError = 0.0099;
const double kGamma = (1 + kBucketError) / (1 - kBucketError);
const double kInvLogGamma = 1 / std::log(kGamma);

}  // namespace

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
    if (r->ok() && !s.exact_.empty()) {
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

void QuantileSketch::Describe(StateCodec* c) {
  if (c->U8("version") != 1) return c->Fail("a quantile sketch of a version this logtide does not write");
  const uint64_t form = c->U8("form");
  if (form == 0) {
    const uint64_t n = c->List("values");
    for (uint64_t i = 0; i < n && c->ok(); ++i) c->F64("");
    c->End();
  } else if (form == 1) {
    c->U64("zero");
    c->F64("min");
    c->F64("max");
    for (const char* store : {"positive", "negative"}) {
      c->Object(store);
      const uint64_t n = c->U32("buckets");
      if (n > 0) {
        c->I32("lo");
        c->ListOf("counts", n);
        for (uint64_t i = 0; i < n && c->ok(); ++i) c->Varint("");
        c->End();
      }
      c->End();
    }
  } else {
    c->Fail("a quantile sketch of an unknown form");
  }
}

}  // namespace logtide
