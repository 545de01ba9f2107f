// Stable LSD radix sort of items by an unsigned integer key, for the large sorts of firing:
// result records by key prefix (output/result_order.h) and a window's pane entries by key id
// (window/pane_operator.h).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace logtide {

// Sorts [first, last) by key(item), keeping the order of items with equal keys, kDigitBits
// bits a pass. A pass in which every item has the same digit (the high digits of small ids, the
// bytes all keys share) is skipped. `scratch` is resized to the number of items and reused.
template <int kDigitBits, typename T, typename KeyFn>
void RadixSort(T* first, T* last, std::vector<T>* scratch, KeyFn key) {
  using Key = std::decay_t<decltype(key(*first))>;
  static_assert(std::is_unsigned_v<Key>);
  constexpr int kBits = static_cast<int>(sizeof(Key)) * 8;
  constexpr int kPasses = (kBits + kDigitBits - 1) / kDigitBits;
  constexpr size_t kBuckets = size_t{1} << kDigitBits;
  constexpr Key kMask = static_cast<Key>(kBuckets - 1);
  const size_t n = static_cast<size_t>(last - first);
  if (n < 2) return;
  // Every pass's counts in one read of the items.
  std::array<std::array<size_t, kBuckets>, kPasses> counts{};
  for (const T* it = first; it != last; ++it) {
    const Key k = key(*it);
    for (int d = 0; d < kPasses; ++d) ++counts[d][(k >> (d * kDigitBits)) & kMask];
  }
  scratch->resize(n);
  T* from = first;
  T* to = scratch->data();
  for (int d = 0; d < kPasses; ++d) {
    std::array<size_t, kBuckets>& c = counts[d];
    if (c[(key(*first) >> (d * kDigitBits)) & kMask] == n) continue;  // one digit: no change
    size_t sum = 0;
    for (size_t& x : c) {
      const size_t k = x;
      x = sum;
      sum += k;
    }
    for (const T* it = from; it != from + n; ++it)
      to[c[(key(*it) >> (d * kDigitBits)) & kMask]++] = *it;
    std::swap(from, to);
  }
  if (from != first) std::copy(from, from + n, first);
}

}  // namespace logtide
