// The order result records are written in (man/logtide.1, SEMANTICS): by window end, then
// window start, then key, field by field with CompareValues. Used by whichever thread writes
// the records: the one applying events, or the output thread (engine/output_thread.h).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "json/value.h"
#include "time/timestamp.h"

namespace logtide {

class ResultOrder {
 public:
  // Starts a new set of records.
  void Clear() {
    bounds_.clear();
    fields_.clear();
    per_key_ = 0;
  }
  // Adds record number size() with its window and key (EncodeValue form; every record's key
  // has the same fields). The key is decoded now: `key` need not outlive the call, but the
  // bytes its strings point to must outlive Sort.
  void Add(Nanos start, Nanos end, std::string_view key);
  size_t size() const { return bounds_.size(); }

  // Returns the record numbers in order. The records of one firing never share a (start, end,
  // key): ties keep no particular order. Valid until the next call of Clear or Sort.
  const std::vector<uint32_t>& Sort();

 private:
  struct KeyItem {
    uint64_t prefix;  // the key's first 8 bytes, big-endian and zero-filled: orders like them
    uint32_t index;
  };
  struct StringItem {
    Nanos end, start;
    uint64_t prefix;  // as in KeyItem
    std::string_view key;
    uint32_t index;
  };
  // Sorts one window's items by key: prefix, then bytes.
  void SortByKey(KeyItem* first, KeyItem* last);

  struct Bounds {
    Nanos start, end;
  };
  std::vector<Bounds> bounds_;
  std::vector<ValueRef> fields_;  // the decoded keys, per_key_ values per record
  size_t per_key_ = 0;
  // Scratch, reused across calls.
  std::vector<uint32_t> order_;
  std::vector<KeyItem> key_items_, radix_scratch_;
  std::vector<StringItem> string_items_;
};

}  // namespace logtide
