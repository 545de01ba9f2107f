// Finding the next byte of a few kinds in a line, 8 bytes at a time in a 64-bit word (no
// instruction set of its own: the same code on every CPU). The converters' scans of keys,
// values and text to escape.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace logtide {
namespace scan {

inline constexpr uint64_t kOnes = 0x0101010101010101ULL;
inline constexpr uint64_t kHighs = 0x8080808080808080ULL;

// The high bit of each byte of `v` that is below `limit` (< 0x80). The lowest bit set is
// exact; a borrow may set bits above it.
inline uint64_t Below(uint64_t v, uint8_t limit) { return (v - kOnes * limit) & ~v & kHighs; }
// The high bit of each byte of `v` equal to `c`, as Below.
inline uint64_t Equal(uint64_t v, char c) {
  return Below(v ^ (kOnes * static_cast<uint8_t>(c)), 1);
}

// Returns the first k in [i, n) with is(s[k]), or n: `word` marks such bytes of an 8-byte
// word as Below does (its lowest mark exact), `is` tells one byte.
template <typename Word, typename Is>
inline size_t Find(const char* s, size_t i, size_t n, Word word, Is is) {
  if constexpr (std::endian::native == std::endian::little) {
    for (; i + 8 <= n; i += 8) {
      uint64_t v;
      std::memcpy(&v, s + i, 8);
      if (const uint64_t m = word(v); m != 0) return i + std::countr_zero(m) / 8;
    }
  }
  while (i < n && !is(s[i])) ++i;
  return i;
}

}  // namespace scan
}  // namespace logtide
