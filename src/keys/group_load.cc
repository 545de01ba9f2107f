#include "keys/group_load.h"

namespace logtide {

void GroupLoad::Vote(const KeyTable& keys, uint32_t id, Group* g) {
  const uint32_t generation = keys.generation(id);
  if (g->votes == 0) {
    const std::string_view key = keys.encoded(id);
    g->key.assign(key.data(), key.size());
    g->hash = keys.hash(id);
    g->id = id;
    g->generation = generation;
    g->votes = 1;
  } else if (keys.hash(id) == g->hash && keys.encoded(id) == g->key) {
    // The candidate, removed and added again since under another id or generation.
    g->id = id;
    g->generation = generation;
    ++g->votes;
  } else {
    --g->votes;
  }
}

void GroupLoad::Absorb(const GroupLoad& other) {
  for (uint32_t g = 0; g < kKeyGroups; ++g) {
    if (other.groups_[g].events > 0) groups_[g] = other.groups_[g];
  }
}

uint64_t GroupLoad::total() const {
  uint64_t n = 0;
  for (const Group& g : groups_) n += g.events;
  return n;
}

GroupLoad::Heaviest GroupLoad::heaviest() const {
  Heaviest h;
  for (uint32_t g = 0; g < kKeyGroups; ++g) {
    if (groups_[g].events <= h.events) continue;
    h.group = g;
    h.events = groups_[g].events;
    h.key = groups_[g].key;
    h.votes = groups_[g].votes;
  }
  return h;
}

}  // namespace logtide
