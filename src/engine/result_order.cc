#include "engine/result_order.h"

#include <algorithm>
#include <cstring>

#include "util/radix_sort.h"

namespace logtide {

namespace {

uint64_t PrefixOf(std::string_view k) {
  unsigned char head[8] = {};
  std::memcpy(head, k.data(), std::min<size_t>(8, k.size()));
  uint64_t prefix = 0;
  for (unsigned char c : head) prefix = prefix << 8 | c;
  return prefix;
}

}  // namespace

void ResultOrder::SortByKey(KeyItem* first, KeyItem* last) {
  const size_t n = static_cast<size_t>(last - first);
  const auto by_key = [&](const KeyItem& a, const KeyItem& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    return fields_[a.index].s < fields_[b.index].s;
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

void ResultOrder::Add(Nanos start, Nanos end, std::string_view key) {
  bounds_.push_back(Bounds{start, end});
  // Decoded once: comparing decoded values is much cheaper than decoding at each comparison.
  while (!key.empty()) fields_.push_back(DecodeValue(&key));
  if (bounds_.size() == 1) per_key_ = fields_.size();
}

const std::vector<uint32_t>& ResultOrder::Sort() {
  const size_t n = bounds_.size();
  const size_t fields = per_key_;
  const std::vector<Bounds>& items = bounds_;
  order_.resize(n);
  for (size_t i = 0; i < n; ++i) order_[i] = static_cast<uint32_t>(i);
  if (n < 2) return order_;
  bool one_string = fields == 1;
  for (size_t i = 0; i < n && one_string; ++i) one_string = fields_[i].type == ValueType::kString;
  bool windows_in_order = true;
  for (size_t i = 1; i < n && windows_in_order; ++i) {
    windows_in_order = items[i - 1].end < items[i].end ||
                       (items[i - 1].end == items[i].end && items[i - 1].start <= items[i].start);
  }
  if (one_string && windows_in_order) {
    // The most common case: results collected window by window, one string key. Each
    // window's run is sorted by key alone, on 16-byte items.
    key_items_.resize(n);
    for (size_t i = 0; i < n; ++i)
      key_items_[i] = KeyItem{PrefixOf(fields_[i].s), static_cast<uint32_t>(i)};
    for (size_t b = 0, e; b < n; b = e) {
      for (e = b + 1; e < n && items[e].end == items[b].end && items[e].start == items[b].start;)
        ++e;
      SortByKey(key_items_.data() + b, key_items_.data() + e);
    }
    for (size_t i = 0; i < n; ++i) order_[i] = key_items_[i].index;
    return order_;
  }
  if (one_string) {
    // A single string key: sort plain (end, start, bytes) tuples.
    string_items_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      std::string_view k = fields_[i].s;
      string_items_[i] =
          StringItem{items[i].end, items[i].start, PrefixOf(k), k, static_cast<uint32_t>(i)};
    }
    // Integer comparisons decide almost every pair; the bytes only break prefix ties.
    std::sort(string_items_.begin(), string_items_.end(),
              [](const StringItem& a, const StringItem& b) {
                if (a.end != b.end) return a.end < b.end;
                if (a.start != b.start) return a.start < b.start;
                if (a.prefix != b.prefix) return a.prefix < b.prefix;
                return a.key < b.key;
              });
    for (size_t i = 0; i < n; ++i) order_[i] = string_items_[i].index;
    return order_;
  }
  std::sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) {
    if (items[a].end != items[b].end) return items[a].end < items[b].end;
    if (items[a].start != items[b].start) return items[a].start < items[b].start;
    for (size_t f = 0; f < fields; ++f) {
      int c = CompareValues(fields_[a * fields + f], fields_[b * fields + f]);
      if (c != 0) return c < 0;
    }
    return false;
  });
  return order_;
}

}  // namespace logtide
