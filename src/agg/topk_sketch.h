// TopKSketch: the most frequent values with an overestimate bound in bounded memory
// (Space-Saving), mergeable, with a versioned byte form. The state of top_k (accumulators.cc;
// agg/sketches.h lists every sketch).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/bytes.h"
#include "util/state_codec.h"

namespace logtide {

// Space-Saving (Metwally, Agrawal, El Abbadi 2005) over values given as their key encoding
// (json/value.h EncodeValue). It keeps at most capacity() counters; a value not kept that
// arrives takes the counter with the smallest count c (ties: the largest value) and starts at
// c + 1 with error c. Every kept count overestimates the value's true count by at most its
// error, and any value not kept occurred at most min-count times. While no more than
// capacity() distinct values were seen, counts are exact and errors 0.
// Merge adds counts value by value; a value missing from a full summary is taken at that
// summary's smallest count (added to its error too), and the capacity() largest survive. It is
// commutative; it is associative while the summaries merged hold every value they saw (no
// eviction happened), and otherwise keeps the bound above.
// Add costs O(log capacity()) past kScanMax counters (a hash lookup, and once full a binary
// heap ordered as the eviction rule orders counters); up to kScanMax it scans them, which is as
// fast and keeps a summary of few values (one per group, often) as small as a vector.
// Merge costs O(n log n) in the counters of both sides.
class TopKSketch {
 public:
  struct Entry {
    std::string value;  // key encoding
    uint64_t count = 0;
    uint64_t error = 0;
  };
  // Counters kept for K results: max(10 K, 64).
  static size_t CapacityFor(uint32_t k);
  static constexpr size_t kScanMax = 32;

  // REQUIRES: capacity >= 1.
  explicit TopKSketch(size_t capacity = 64) : capacity_(capacity) {}
  TopKSketch(const TopKSketch& o);
  TopKSketch& operator=(const TopKSketch& o);
  TopKSketch(TopKSketch&&) noexcept = default;
  TopKSketch& operator=(TopKSketch&&) noexcept = default;
  ~TopKSketch() = default;

  size_t capacity() const { return capacity_; }
  void Add(std::string_view value);
  void Merge(const TopKSketch& o);
  // The k entries with the largest counts, ties by value ascending. The pointers are valid
  // until the next call of a non-const method.
  std::vector<const Entry*> Top(size_t k) const;
  size_t size() const { return entries_.size(); }
  // Whether every kept value passes `ok` (for values restored from a state file).
  template <class Pred>
  bool ValuesAre(Pred ok) const {
    for (const Entry& e : entries_) {
      if (!ok(e.value)) return false;
    }
    return true;
  }

  // Form (version 1): u8 1, u32 n, then n entries: bytes value, u64 count, u64 error, sorted
  // by value.
  void Snapshot(ByteWriter* w) const;
  bool Restore(ByteReader* r);
  // Describes Snapshot's form field by field (util/state_codec.h).
  static void Describe(StateCodec* c);

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view v) const { return std::hash<std::string_view>()(v); }
  };
  // Lookups for more than kScanMax counters. Indices only, so a copy is valid as it is.
  struct Lookup {
    std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> index;  // value -> entry
    // While full (no eviction happens before): the entries' indices as a binary min-heap by
    // EvictsFirst, heap[0] the next victim, and pos[i] the place of entry i in it.
    std::vector<uint32_t> heap, pos;
  };
  // Whether entries_[a] is evicted before entries_[b]: the smaller count, ties the larger value.
  bool EvictsFirst(uint32_t a, uint32_t b) const {
    const Entry& x = entries_[a];
    const Entry& y = entries_[b];
    return x.count != y.count ? x.count < y.count : x.value > y.value;
  }
  // The index of `value` in entries_, or size() when it is not kept.
  size_t Find(std::string_view value) const;
  // The index of the next counter to evict. REQUIRES: size() > 0.
  uint32_t Victim() const;
  uint64_t MinCount() const { return entries_[Victim()].count; }  // REQUIRES: size() > 0
  void SiftUp(size_t pos);
  void SiftDown(size_t pos);
  void Place(size_t pos, uint32_t i) {
    lookup_->heap[pos] = i;
    lookup_->pos[i] = static_cast<uint32_t>(pos);
  }
  // Rebuilds lookup_ from entries_: none for up to kScanMax of them, else the index, and the
  // heap when full.
  void Reindex();
  void BuildHeap();

  size_t capacity_;
  // The counters, in no meaningful order: results and bytes depend only on their values,
  // counts and errors. An entry keeps its index until Merge or Restore replaces them all.
  std::vector<Entry> entries_;
  std::unique_ptr<Lookup> lookup_;  // set exactly when size() > kScanMax
};

}  // namespace logtide
