#include "engine/window_operator.h"

#include <algorithm>
#include <cstring>

#include "engine/pane_operator.h"
#include "engine/session_operator.h"

namespace logtide {

std::unique_ptr<WindowOperator> WindowOperator::Create(const WindowSpec& spec, Nanos lateness,
                                                       EmitMode mode, Deps deps) {
  if (spec.is_session()) return std::make_unique<SessionOperator>(spec, lateness, mode, deps);
  return std::make_unique<PaneOperator>(spec, lateness, mode, deps);
}

void WindowOperator::SortByKey(KeyItem* first, KeyItem* last) {
  const size_t n = static_cast<size_t>(last - first);
  const auto by_key = [&](const KeyItem& a, const KeyItem& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    return sort_keys_[a.index].s < sort_keys_[b.index].s;
  };
  if (n < 256) {
    std::sort(first, last, by_key);
    return;
  }
  // Many keys (one window of a high-cardinality job): LSD radix sort on the prefix, a byte at
  // a time, skipping the bytes all keys share; then keys with equal prefixes by their bytes.
  size_t counts[8][256] = {};
  for (const KeyItem* it = first; it != last; ++it) {
    for (int d = 0; d < 8; ++d) ++counts[d][(it->prefix >> (8 * d)) & 0xFF];
  }
  radix_scratch_.resize(n);
  KeyItem* from = first;
  KeyItem* to = radix_scratch_.data();
  for (int d = 0; d < 8; ++d) {
    size_t* c = counts[d];
    if (c[(first->prefix >> (8 * d)) & 0xFF] == n) continue;  // one value: order unchanged
    size_t sum = 0;
    for (int v = 0; v < 256; ++v) {
      size_t k = c[v];
      c[v] = sum;
      sum += k;
    }
    for (const KeyItem* it = from; it != from + n; ++it) to[c[(it->prefix >> (8 * d)) & 0xFF]++] = *it;
    std::swap(from, to);
  }
  if (from != first) std::copy(from, from + n, first);
  for (KeyItem* b = first; b != last;) {
    KeyItem* e = b + 1;
    while (e != last && e->prefix == b->prefix) ++e;
    if (e - b > 1) std::sort(b, e, by_key);
    b = e;
  }
}

void WindowOperator::EmitSorted(std::vector<WindowResult>* results) {
  if (results->size() > 1) {
    // Decode every key once (keys_ holds their fields, `fields` per result), then sort indexes:
    // comparing decoded values is much cheaper than decoding at each comparison.
    const size_t n = results->size();
    std::string_view first = deps_.keys->encoded((*results)[0].key);
    size_t fields = 0;
    while (!first.empty()) {
      DecodeValue(&first);
      ++fields;
    }
    sort_keys_.resize(n * fields);
    order_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      // Results come in id order of their keys at best: fetch a few keys ahead.
      if (i + 8 < n) deps_.keys->Prefetch((*results)[i + 8].key);
      std::string_view k = deps_.keys->encoded((*results)[i].key);
      for (size_t f = 0; f < fields; ++f) sort_keys_[i * fields + f] = DecodeValue(&k);
      order_[i] = static_cast<uint32_t>(i);
    }
    const std::vector<WindowResult>& r = *results;
    bool one_string = fields == 1;
    for (size_t i = 0; i < n && one_string; ++i)
      one_string = sort_keys_[i].type == ValueType::kString;
    auto prefix_of = [](std::string_view k) {
      unsigned char head[8] = {};
      std::memcpy(head, k.data(), std::min<size_t>(8, k.size()));
      uint64_t prefix = 0;
      for (unsigned char c : head) prefix = prefix << 8 | c;
      return prefix;
    };
    bool windows_in_order = true;
    for (size_t i = 1; i < n && windows_in_order; ++i) {
      windows_in_order = r[i - 1].end < r[i].end ||
                         (r[i - 1].end == r[i].end && r[i - 1].start <= r[i].start);
    }
    if (one_string && windows_in_order) {
      // The most common case: results collected window by window, one string key. Each
      // window's run is sorted by key alone, on 16-byte items.
      std::vector<KeyItem>& items = key_items_;
      items.resize(n);
      for (size_t i = 0; i < n; ++i)
        items[i] = KeyItem{prefix_of(sort_keys_[i].s), static_cast<uint32_t>(i)};
      for (size_t b = 0, e; b < n; b = e) {
        for (e = b + 1; e < n && r[e].end == r[b].end && r[e].start == r[b].start;) ++e;
        SortByKey(items.data() + b, items.data() + e);
      }
      // Records go out in key order, their keys' entries are in id order: fetch a few ahead.
      constexpr size_t kAhead = 8;
      for (size_t i = 0; i < n; ++i) {
        if (i + kAhead < n) deps_.keys->Prefetch(r[items[i + kAhead].index].key);
        deps_.emitter->Emit(r[items[i].index]);
      }
      results->clear();
      return;
    }
    if (one_string) {
      // A single string key: sort plain (end, start, bytes) tuples.
      using Item = SortItem;
      std::vector<Item>& items = string_items_;
      items.resize(n);
      for (size_t i = 0; i < n; ++i) {
        std::string_view k = sort_keys_[i].s;
        items[i] = Item{r[i].end, r[i].start, prefix_of(k), k, static_cast<uint32_t>(i)};
      }
      // Integer comparisons decide almost every pair; the bytes only break prefix ties.
      std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
        if (a.end != b.end) return a.end < b.end;
        if (a.start != b.start) return a.start < b.start;
        if (a.prefix != b.prefix) return a.prefix < b.prefix;
        return a.key < b.key;
      });
      for (const Item& it : items) deps_.emitter->Emit(r[it.index]);
      results->clear();
      return;
    }
    std::sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) {
      if (r[a].end != r[b].end) return r[a].end < r[b].end;
      if (r[a].start != r[b].start) return r[a].start < r[b].start;
      for (size_t f = 0; f < fields; ++f) {
        int c = CompareValues(sort_keys_[a * fields + f], sort_keys_[b * fields + f]);
        if (c != 0) return c < 0;
      }
      return false;
    });
    for (uint32_t i : order_) deps_.emitter->Emit(r[i]);
  } else if (results->size() == 1) {
    deps_.emitter->Emit((*results)[0]);
  }
  results->clear();
}

}  // namespace logtide
