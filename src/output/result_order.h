// The order result records are written in (man/logtide.1, SEMANTICS): by window end, then
// window start, then key. Keys are compared as their bytes (json/value.h: the encoding orders
// as the values, field by field). FiringWriter (output/firing_writer.h) writes a firing's
// records in this order, on whichever thread writes them.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "time/timestamp.h"

namespace logtide {

class ResultOrder {
 public:
  // Starts a new set of records.
  void Clear() {
    records_.clear();
  }
  // Adds record number size() with its window and key (EncodeValue form). The key's bytes must
  // outlive Sort.
  void Add(Nanos start, Nanos end, std::string_view key) {
    records_.push_back(Record{start, end, key});
  }
  size_t size() const { return records_.size(); }
  // Record number i's window and key, as added.
  Nanos start(uint32_t i) const { return records_[i].start; }
  Nanos end(uint32_t i) const { return records_[i].end; }
  std::string_view key(uint32_t i) const { return records_[i].key; }

  // Returns the record numbers in order. The records of one firing never share a (start, end,
  // key): ties keep no particular order. Valid until the next call of Clear or Sort.
  const std::vector<uint32_t>& Sort();

 private:
  struct Record {
    Nanos start, end;
    std::string_view key;
  };
  struct KeyItem {
    uint64_t prefix;  // 8 of the key's first bytes, big-endian and zero-filled: orders like them
    uint32_t index;
  };
  // Sorts one window's items by key: prefix, then bytes.
  void SortByKey(KeyItem* first, KeyItem* last);

  std::vector<Record> records_;
  // Scratch, reused across calls.
  std::vector<uint32_t> order_;
  std::vector<KeyItem> key_items_, radix_scratch_;
};

}  // namespace logtide
