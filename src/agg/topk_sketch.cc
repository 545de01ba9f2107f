#include "agg/topk_sketch.h"

#include <algorithm>

namespace logtide {

size_t TopKSketch::CapacityFor(uint32_t k) { return std::max<size_t>(size_t{10} * k, 64); }

TopKSketch::TopKSketch(const TopKSketch& o)
    : capacity_(o.capacity_),
      entries_(o.entries_),
      lookup_(o.lookup_ ? std::make_unique<Lookup>(*o.lookup_) : nullptr) {}

TopKSketch& TopKSketch::operator=(const TopKSketch& o) {
  if (this != &o) *this = TopKSketch(o);
  return *this;
}

size_t TopKSketch::Find(std::string_view value) const {
  if (lookup_) {
    const auto it = lookup_->index.find(value);
    return it == lookup_->index.end() ? entries_.size() : it->second;
  }
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].value == value) return i;
  }
  return entries_.size();
}

uint32_t TopKSketch::Victim() const {
  if (lookup_ && !lookup_->heap.empty()) return lookup_->heap[0];
  uint32_t victim = 0;
  for (uint32_t j = 1; j < entries_.size(); ++j) {
    if (EvictsFirst(j, victim)) victim = j;
  }
  return victim;
}

void TopKSketch::SiftUp(size_t pos) {
  const uint32_t i = lookup_->heap[pos];
  while (pos > 0) {
    const size_t parent = (pos - 1) / 2;
    if (!EvictsFirst(i, lookup_->heap[parent])) break;
    Place(pos, lookup_->heap[parent]);
    pos = parent;
  }
  Place(pos, i);
}

void TopKSketch::SiftDown(size_t pos) {
  const std::vector<uint32_t>& heap = lookup_->heap;
  const uint32_t i = heap[pos];
  const size_t n = heap.size();
  for (;;) {
    size_t child = 2 * pos + 1;
    if (child >= n) break;
    if (child + 1 < n && EvictsFirst(heap[child + 1], heap[child])) ++child;
    if (!EvictsFirst(heap[child], i)) break;
    Place(pos, heap[child]);
    pos = child;
  }
  Place(pos, i);
}

void TopKSketch::BuildHeap() {
  const auto n = static_cast<uint32_t>(entries_.size());
  lookup_->heap.resize(n);
  lookup_->pos.resize(n);
  for (uint32_t i = 0; i < n; ++i) Place(i, i);
  for (size_t pos = n / 2; pos-- > 0;) SiftDown(pos);
}

void TopKSketch::Reindex() {
  if (entries_.size() <= kScanMax) {
    lookup_.reset();
    return;
  }
  lookup_ = std::make_unique<Lookup>();
  lookup_->index.reserve(entries_.size());
  for (uint32_t i = 0; i < entries_.size(); ++i) lookup_->index.emplace(entries_[i].value, i);
  if (entries_.size() >= capacity_) BuildHeap();
}

void TopKSketch::Add(std::string_view value) {
  const size_t i = Find(value);
  if (i < entries_.size()) {
    ++entries_[i].count;
    // A larger count only moves an entry away from the root.
    if (lookup_ && !lookup_->heap.empty()) SiftDown(lookup_->pos[i]);
    return;
  }
  if (entries_.size() < capacity_) {
    entries_.push_back(Entry{std::string(value), 1, 0});
    if (!lookup_) {
      if (entries_.size() > kScanMax) Reindex();
    } else {
      lookup_->index.emplace(value, static_cast<uint32_t>(i));
      if (entries_.size() == capacity_) BuildHeap();
    }
    return;
  }
  // The smallest count; among equal ones the largest value, so the order of ties never
  // depends on where an entry sits.
  const uint32_t victim = Victim();
  Entry& e = entries_[victim];
  if (lookup_) {
    auto node = lookup_->index.extract(e.value);
    node.key().assign(value);
    lookup_->index.insert(std::move(node));
  }
  e.error = e.count;
  e.count += 1;
  e.value.assign(value);
  if (lookup_) SiftDown(0);  // the root's count grew: it only moves down
}

void TopKSketch::Merge(const TopKSketch& o) {
  const bool full = entries_.size() >= capacity_, o_full = o.entries_.size() >= o.capacity_;
  const uint64_t floor = full ? MinCount() : 0, o_floor = o_full ? o.MinCount() : 0;
  std::vector<Entry> merged;
  merged.reserve(entries_.size() + o.entries_.size());
  std::vector<bool> taken(o.entries_.size(), false);
  for (const Entry& e : entries_) {
    Entry m = e;
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
    Entry m = o.entries_[j];
    m.count += floor;
    m.error += floor;
    merged.push_back(std::move(m));
  }
  std::sort(merged.begin(), merged.end(), [](const Entry& a, const Entry& b) {
    return a.count != b.count ? a.count > b.count : a.value < b.value;
  });
  if (merged.size() > capacity_) merged.resize(capacity_);
  entries_ = std::move(merged);
  Reindex();
}

std::vector<const TopKSketch::Entry*> TopKSketch::Top(size_t k) const {
  std::vector<const Entry*> top;
  top.reserve(entries_.size());
  for (const Entry& e : entries_) top.push_back(&e);
  std::sort(top.begin(), top.end(), [](const Entry* a, const Entry* b) {
    return a->count != b->count ? a->count > b->count : a->value < b->value;
  });
  if (top.size() > k) top.resize(k);
  return top;
}

void TopKSketch::Snapshot(ByteWriter* w) const {
  std::vector<const Entry*> sorted;
  for (const Entry& e : entries_) sorted.push_back(&e);
  std::sort(sorted.begin(), sorted.end(),
            [](const Entry* a, const Entry* b) { return a->value < b->value; });
  w->U8(1);
  w->U32(static_cast<uint32_t>(sorted.size()));
  for (const Entry* e : sorted) {
    w->Bytes(e->value);
    w->U64(e->count);
    w->U64(e->error);
  }
}

bool TopKSketch::Restore(ByteReader* r) {
  entries_.clear();
  std::vector<Entry> entries;
  if (r->U8() != 1) r->Fail();
  const uint32_t n = r->U32();
  if (n > capacity_) r->Fail();
  for (uint32_t i = 0; i < n && r->ok(); ++i) {
    Entry e;
    e.value.assign(r->Bytes());
    e.count = r->U64();
    e.error = r->U64();
    // Sorted by value without repeats; an error never exceeds its count, which is >= 1.
    if (e.count == 0 || e.error >= e.count) r->Fail();
    if (!entries.empty() && e.value <= entries.back().value) r->Fail();
    entries.push_back(std::move(e));
  }
  if (!r->ok()) {
    Reindex();
    return false;
  }
  entries_ = std::move(entries);
  Reindex();
  return true;
}

void TopKSketch::Describe(StateCodec* c) {
  if (c->U8("version") != 1) return c->Fail("a top-k sketch of a version this logtide does not write");
  const uint64_t n = c->List("entries");
  for (uint64_t i = 0; i < n && c->ok(); ++i) {
    c->Object("");
    c->Value("value");
    c->U64("count");
    c->U64("error");
    c->End();
  }
  c->End();
}

}  // namespace logtide
