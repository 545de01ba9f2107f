#include "output/result_order.h"

#include <algorithm>
#include <cstring>

#include "util/radix_sort.h"

namespace logtide {

namespace {

// The key's 8 bytes from `skip` on, as a big-endian number (zero-filled past its end).
uint64_t PrefixOf(std::string_view k, size_t skip) {
  unsigned char head[8] = {};
  if (k.size() > skip) std::memcpy(head, k.data() + skip, std::min<size_t>(8, k.size() - skip));
  uint64_t prefix = 0;
  for (unsigned char c : head) prefix = prefix << 8 | c;
  return prefix;
}

}  // namespace

void ResultOrder::SortByKey(KeyItem* first, KeyItem* last) {
  const size_t n = static_cast<size_t>(last - first);
  const auto by_key = [&](const KeyItem& a, const KeyItem& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    return records_[a.index].key < records_[b.index].key;
  };
  if (n < 256) {
    std::sort(first, last, by_key);
    return;
  }
  // Many keys (one window of a high-cardinality job): radix sort on the prefix, a byte at a
  // time, skipping the bytes all keys share; then keys with equal prefixes by their bytes.
  RadixSort<8>(first, last, &radix_scratch_, [](const KeyItem& item) { return item.prefix; });
  for (KeyItem* b = first; b != last;) {
    KeyItem* e = b + 1;
    while (e != last && e->prefix == b->prefix) ++e;
    if (e - b > 1) std::sort(b, e, by_key);
    b = e;
  }
}

const std::vector<uint32_t>& ResultOrder::Sort() {
  const size_t n = records_.size();
  order_.resize(n);
  for (size_t i = 0; i < n; ++i) order_[i] = static_cast<uint32_t>(i);
  if (n < 2) return order_;
  const auto window_less = [&](uint32_t a, uint32_t b) {
    const Record& x = records_[a];
    const Record& y = records_[b];
    return x.end != y.end ? x.end < y.end : x.start < y.start;
  };
  // Firings usually hand over their records window by window.
  bool windows_in_order = true;
  for (size_t i = 1; i < n && windows_in_order; ++i) windows_in_order = !window_less(i, i - 1);
  if (!windows_in_order) std::sort(order_.begin(), order_.end(), window_less);
  // Keys nearly always share their first byte (the type of their first field): the prefix
  // starts after it.
  size_t skip = 1;
  for (size_t i = 0; i < n && skip == 1; ++i) {
    const std::string_view k = records_[i].key;
    if (k.empty() || k[0] != records_[0].key[0]) skip = 0;
  }
  key_items_.resize(n);
  for (size_t i = 0; i < n; ++i)
    key_items_[i] = KeyItem{PrefixOf(records_[order_[i]].key, skip), order_[i]};
  // Then each window's run by key.
  for (size_t b = 0, e; b < n; b = e) {
    const Record& w = records_[key_items_[b].index];
    for (e = b + 1; e < n; ++e) {
      const Record& r = records_[key_items_[e].index];
      if (r.end != w.end || r.start != w.start) break;
    }
    SortByKey(key_items_.data() + b, key_items_.data() + e);
  }
  for (size_t i = 0; i < n; ++i) order_[i] = key_items_[i].index;
  return order_;
}

}  // namespace logtide
