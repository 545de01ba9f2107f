// Group keys interned to small integer ids. A key lives while some window state refers to it
// (reference counted); its id is then recycled. Keys are stored in EncodeValue form.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "json/value.h"

namespace logtide {

class KeyTable {
 public:
  // Returns the id of the key with this encoding, adding it with no references if new.
  uint32_t Intern(std::string_view encoded);
  void Ref(uint32_t id) { ++entries_[id].refs; }
  // Drops one reference; the key is removed when none is left.
  void Unref(uint32_t id);
  // Removes the key if nothing refers to it (a key seen only in late events).
  void ReleaseIfUnused(uint32_t id) {
    if (entries_[id].refs == 0) Remove(id);
  }

  std::string_view encoded(uint32_t id) const { return entries_[id].bytes; }
  uint32_t refs(uint32_t id) const { return entries_[id].refs; }
  // Orders two keys field by field with CompareValues; equal encodings compare equal.
  int Compare(uint32_t a, uint32_t b) const;
  size_t size() const { return index_.size(); }

 private:
  struct Entry {
    std::string bytes;
    uint32_t refs = 0;
  };
  void Remove(uint32_t id);

  std::vector<Entry> entries_;
  std::vector<uint32_t> free_;
  absl::flat_hash_map<std::string, uint32_t> index_;
};

}  // namespace logtide
