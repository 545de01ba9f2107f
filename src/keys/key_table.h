// The one key interner: group keys (EncodeValue form, json/value.h) to small integer ids.
// Contract: while a key lives, interning its bytes gives its id, and only its bytes give it;
// encoded(id) is its bytes. A key lives while something refers to it (Ref/Unref: window state,
// and the interner's own cache of recent keys); an unreferenced key is removed by
// ReleaseIfUnused or its last Unref, and its id is recycled. Each key also carries the window
// operator's note of its latest pane.
#pragma once

#include <absl/container/flat_hash_set.h>
#include <absl/hash/hash.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "json/value.h"

namespace logtide {

class KeyTable {
 public:
  KeyTable() : index_(0, IdHash{this}, IdEq{this}) {}
  // The index refers back to the table.
  KeyTable(const KeyTable&) = delete;
  KeyTable& operator=(const KeyTable&) = delete;

  // The hash Intern uses; may be computed on another thread.
  static size_t Hash(std::string_view encoded) {
    return absl::Hash<absl::string_view>()(absl::string_view(encoded.data(), encoded.size()));
  }
  // Returns the id of the key with this encoding, adding it with no references if new.
  // REQUIRES: hash == Hash(encoded).
  uint32_t Intern(std::string_view encoded, size_t hash);
  uint32_t Intern(std::string_view encoded) { return Intern(encoded, Hash(encoded)); }
  // Intern, through a cache of recent keys when `token` is not 0: an event whose token is
  // cached (EventParser gives recent keys a token, Event::key_token) skips the lookup by bytes.
  // A cached key holds a reference, so it lives (and keeps its id) while cached.
  // REQUIRES: slot < kCacheSlots; calls with the same nonzero token have the same bytes.
  static constexpr uint32_t kCacheSlots = 64;
  uint32_t Intern(std::string_view encoded, size_t hash, uint64_t token, uint32_t slot) {
    if (token == 0) return Intern(encoded, hash);
    CacheEntry& e = cache_[slot];
    if (e.token == token) return e.id;
    return CacheMiss(encoded, hash, token, &e);
  }
  // Empties the cache, dropping its references.
  void ClearCache();
  void Ref(uint32_t id) { ++entries_[id].refs; }
  // Drops one reference; the key is removed when none is left.
  void Unref(uint32_t id);
  // Removes the key if nothing refers to it (a key seen only in late events).
  void ReleaseIfUnused(uint32_t id) {
    if (entries_[id].refs == 0) Remove(id);
  }

  std::string_view encoded(uint32_t id) const { return entries_[id].bytes; }
  // Hash(encoded(id)).
  size_t hash(uint32_t id) const { return entries_[id].hash; }
  // KeyGroupOf(encoded(id)), computed when the key was added.
  uint32_t group(uint32_t id) const { return entries_[id].group; }
  // Tells the keys an id has held apart: it changes when the key is removed, so (id,
  // generation) names one key for the whole run (up to 2^32 removals of one id).
  uint32_t generation(uint32_t id) const { return entries_[id].generation; }
  // A pane and a slot in it, kept with the key for PaneOperator (window/pane_operator.h, whose
  // pane the address is; opaque here): the key's state in the pane it was last added to,
  // found with no lookup beyond the key's own. A new key has none: nullptr and kNoSlot.
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  void* pane(uint32_t id) const { return entries_[id].pane; }
  uint32_t pane_slot(uint32_t id) const { return entries_[id].pane_slot; }
  void set_pane(uint32_t id, void* pane, uint32_t slot) {
    entries_[id].pane = pane;
    entries_[id].pane_slot = slot;
  }
  // Starts loading a key into the CPU cache (short keys are held inside their entry).
  void Prefetch(uint32_t id) const { __builtin_prefetch(&entries_[id]); }
  uint32_t refs(uint32_t id) const { return entries_[id].refs; }
  size_t size() const { return index_.size(); }

 private:
  struct Entry {
    std::string bytes;
    size_t hash = 0;  // Hash(bytes): the index rehashes, inserts and erases by id without it
    void* pane = nullptr;
    uint32_t refs = 0;
    uint32_t pane_slot = kNoSlot;
    uint32_t group = 0;
    uint32_t generation = 0;
  };
  void Remove(uint32_t id);
  struct CacheEntry {
    uint64_t token = 0;  // 0: empty
    uint32_t id = 0;
  };
  uint32_t CacheMiss(std::string_view encoded, size_t hash, uint64_t token, CacheEntry* e);

  // The index holds only ids (4 bytes a slot, so it stays in cache) and finds them by their
  // bytes in entries_.
  struct IdHash {
    using is_transparent = void;
    const KeyTable* table;
    // absl::string_view: absl's own hash (for std::string_view it falls back to std::hash).
    size_t operator()(std::string_view s) const { return KeyTable::Hash(s); }
    size_t operator()(uint32_t id) const { return table->entries_[id].hash; }
  };
  struct IdEq {
    using is_transparent = void;
    const KeyTable* table;
    bool operator()(uint32_t a, uint32_t b) const { return a == b; }
    bool operator()(uint32_t a, std::string_view b) const { return table->encoded(a) == b; }
    bool operator()(std::string_view a, uint32_t b) const { return a == table->encoded(b); }
  };

  std::vector<Entry> entries_;
  std::vector<uint32_t> free_;
  absl::flat_hash_set<uint32_t, IdHash, IdEq> index_;
  CacheEntry cache_[kCacheSlots];
};

}  // namespace logtide
