#include "keys/group_load.h"

namespace logtide {

void GroupLoad::Cast(const KeyTable& keys, uint32_t id, Vote* g) {
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
    if (other.events_[g] == 0) continue;
    events_[g] = other.events_[g];
    votes_[g] = other.votes_[g];
  }
}

uint64_t GroupLoad::total() const {
  uint64_t n = 0;
  for (uint64_t e : events_) n += e;
  return n;
}

GroupLoad::Heaviest GroupLoad::heaviest() const {
  Heaviest h;
  for (uint32_t g = 0; g < kKeyGroups; ++g) {
    if (events_[g] <= h.events) continue;
    h.group = g;
    h.events = events_[g];
    h.key = votes_[g].key;
    h.votes = votes_[g].votes;
  }
  return h;
}

}  // namespace logtide
