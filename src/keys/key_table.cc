#include "keys/key_table.h"

#include "keys/key_group.h"

namespace logtide {

uint32_t KeyTable::Intern(std::string_view encoded, size_t hash) {
  auto it = index_.find(encoded, hash);
  if (it != index_.end()) return *it;
  uint32_t id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    id = static_cast<uint32_t>(entries_.size());
    entries_.emplace_back();
  }
  entries_[id].bytes.assign(encoded.data(), encoded.size());
  entries_[id].hash = hash;
  entries_[id].group = KeyGroupOf(encoded);
  entries_[id].refs = 0;
  entries_[id].pane = nullptr;
  entries_[id].pane_slot = kNoSlot;
  index_.insert(id);
  return id;
}

void KeyTable::Unref(uint32_t id) {
  if (--entries_[id].refs == 0) Remove(id);
}

void KeyTable::Remove(uint32_t id) {
  index_.erase(id);
  entries_[id].bytes.clear();
  ++entries_[id].generation;
  free_.push_back(id);
}

uint32_t KeyTable::CacheMiss(std::string_view encoded, size_t hash, uint64_t token,
                             CacheEntry* e) {
  const uint32_t id = Intern(encoded, hash);
  // Take the new reference before dropping the old: the old id may be this one.
  Ref(id);
  if (e->token != 0) Unref(e->id);
  e->token = token;
  e->id = id;
  return id;
}

void KeyTable::ClearCache() {
  for (CacheEntry& e : cache_) {
    if (e.token != 0) Unref(e.id);
    e.token = 0;
  }
}

}  // namespace logtide
