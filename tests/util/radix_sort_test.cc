#include "util/radix_sort.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

namespace logtide {
namespace {

struct Item {
  uint64_t key;
  uint32_t index;  // position before sorting: equal keys must keep their order
};

// Random items whose keys are drawn from `keys` values spread with `stride`, over `base`.
std::vector<Item> MakeItems(size_t n, uint64_t keys, uint64_t stride, uint64_t base,
                            uint64_t seed) {
  uint64_t x = seed;  // xorshift64
  std::vector<Item> items;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    items.push_back(Item{base + (x % keys) * stride, static_cast<uint32_t>(i)});
  }
  return items;
}

bool SortedStably(const std::vector<Item>& items) {
  for (size_t i = 1; i < items.size(); ++i) {
    if (items[i - 1].key > items[i].key) return false;
    if (items[i - 1].key == items[i].key && items[i - 1].index > items[i].index) return false;
  }
  return true;
}

TEST_CASE("RadixSort sorts by key and keeps the order of equal keys") {
  struct Case {
    size_t n;
    uint64_t keys, stride, base;
  };
  // Few and many distinct keys; keys that differ only in high digits, only in low ones, or
  // share their high bytes (as key prefixes do); sizes around a digit's bucket count.
  const Case cases[] = {{0, 1, 1, 0},
                        {1, 1, 1, 0},
                        {2, 2, 1, 0},
                        {5000, 1, 1, 7},
                        {5000, 3, 1, 0},
                        {70000, 70000, 1, 0},
                        {70000, 50, 1u << 20, 0},
                        {4096, 4096, 1, 0xABCD000000000000},
                        {30000, 1000, 0x0100000000000001, 0},
                        {257, 257, 1, ~uint64_t{0} - 300}};
  uint64_t seed = 88172645463325252ull;
  for (const Case& c : cases) {
    CAPTURE(c.n, c.keys, c.stride, c.base);
    std::vector<Item> items = MakeItems(c.n, c.keys, c.stride, c.base, seed++);
    std::vector<Item> scratch;
    RadixSort<8>(items.data(), items.data() + items.size(), &scratch,
                 [](const Item& i) { return i.key; });
    CHECK(SortedStably(items));
    CHECK(items.size() == c.n);

    // 32-bit keys with 11-bit digits (the pane operator's key ids).
    std::vector<Item> ids = MakeItems(c.n, c.keys, c.stride, c.base, seed++);
    RadixSort<11>(ids.data(), ids.data() + ids.size(), &scratch,
                  [](const Item& i) { return static_cast<uint32_t>(i.key); });
    bool ok = true;
    for (size_t i = 1; i < ids.size(); ++i) {
      const uint32_t a = static_cast<uint32_t>(ids[i - 1].key),
                     b = static_cast<uint32_t>(ids[i].key);
      ok = ok && (a < b || (a == b && ids[i - 1].index < ids[i].index));
    }
    CHECK(ok);
  }
}

}  // namespace
}  // namespace logtide
