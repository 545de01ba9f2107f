// Integer math on nanosecond timestamps: floor division and saturating arithmetic.
// INT64_MIN and INT64_MAX stand for -infinity and +infinity and absorb any addition.
#pragma once

#include <cstdint>
#include <limits>

namespace logtide {

inline constexpr int64_t kMinusInfinity = std::numeric_limits<int64_t>::min();
inline constexpr int64_t kPlusInfinity = std::numeric_limits<int64_t>::max();

// Returns floor(a / b). REQUIRES: b > 0.
constexpr int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

// Returns a - b * floor(a / b), in [0, b), without computing the product (which overflows for
// a near INT64_MIN). REQUIRES: b > 0.
constexpr int64_t FloorMod(int64_t a, int64_t b) {
  int64_t r = a % b;
  return r < 0 ? r + b : r;
}

// Returns the largest multiple of `unit` that is <= t. REQUIRES: unit > 0.
// Saturates to kMinusInfinity when the multiple is not representable.
constexpr int64_t FloorTo(int64_t t, int64_t unit) {
  int64_t q = FloorDiv(t, unit);
  int64_t r;
  if (__builtin_mul_overflow(q, unit, &r)) return kMinusInfinity;
  return r;
}

// Returns a + b, clamped to [kMinusInfinity, kPlusInfinity]; an infinite a stays infinite.
constexpr int64_t SatAdd(int64_t a, int64_t b) {
  if (a == kMinusInfinity || a == kPlusInfinity) return a;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? kPlusInfinity : kMinusInfinity;
  return r;
}

// Returns a - b with the same saturation as SatAdd. REQUIRES: b != INT64_MIN.
constexpr int64_t SatSub(int64_t a, int64_t b) { return SatAdd(a, -b); }

}  // namespace logtide
