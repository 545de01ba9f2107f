#include "keys/key_table.h"

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
  free_.push_back(id);
}

uint32_t KeyCache::Miss(std::string_view encoded, size_t hash, uint64_t token, Entry* e) {
  const uint32_t id = keys_->Intern(encoded, hash);
  // Take the new reference before dropping the old: the old id may be this one.
  keys_->Ref(id);
  if (e->token != 0) keys_->Unref(e->id);
  e->token = token;
  e->id = id;
  return id;
}

void KeyCache::Clear() {
  for (Entry& e : slots_) {
    if (e.token != 0) keys_->Unref(e.id);
    e.token = 0;
  }
}

int KeyTable::Compare(uint32_t a, uint32_t b) const {
  if (a == b) return 0;
  std::string_view x = entries_[a].bytes, y = entries_[b].bytes;
  while (!x.empty() && !y.empty()) {
    int c = CompareValues(DecodeValue(&x), DecodeValue(&y));
    if (c != 0) return c;
  }
  return 0;
}

}  // namespace logtide
