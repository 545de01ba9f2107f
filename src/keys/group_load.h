// How a run's events spread over the key groups (keys/key_group.h), for the warning that more
// apply threads cannot help: per group, the events applied and a majority vote over their keys
// (Boyer and Moore's): the key the vote ends on received at least `votes` of the group's
// events. A group's events are counted in input order by the thread that applies them (one
// per group: GroupLoads of several threads are joined by Absorb), so the figures are the
// same for every --apply-threads. Fixed memory: kKeyGroups entries.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "keys/key_group.h"
#include "keys/key_table.h"

namespace logtide {

class GroupLoad {
 public:
  // An event of key `id` of `keys` was applied. The vote is over the keys' bytes; it compares
  // ids (with their generation) first, and bytes only for a key of the candidate's hash, so
  // most events cost no look at a key's bytes.
  //
  // `seq` is the event's number in the stream (KeyedEvent::seq). Only the events of a group
  // that has had a quarter of the run's events so far vote (a key with less would not be
  // named): a vote over some of a group's events still names a key with at least its votes,
  // and the choice depends on the stream alone, so it is the same for every thread count.
  void Add(const KeyTable& keys, uint32_t id, uint64_t seq) {
    const uint32_t group = keys.group(id);
    const uint64_t events = ++events_[group];
    if (4 * events < seq - first_seq_) return;
    Vote& v = votes_[group];
    if (id == v.id && keys.generation(id) == v.generation && v.votes != 0) {
      ++v.votes;
      return;
    }
    Cast(keys, id, &v);
  }
  // Takes the groups `other` counted (another thread's keys: a group is counted by one).
  // REQUIRES: no group was counted by both.
  void Absorb(const GroupLoad& other);

  // The number before the run's first event (a resumed run's events go on from the saved
  // count).
  void set_first_seq(uint64_t seq) { first_seq_ = seq; }

  uint64_t total() const;

  // The group with the most events (the lowest such), and its vote.
  struct Heaviest {
    uint32_t group = 0;
    uint64_t events = 0;
    std::string_view key;  // encoded; received at least `votes` of the group's events
    uint64_t votes = 0;
  };
  Heaviest heaviest() const;

 private:
  // A group's vote: apart from the counts, which every event touches (32 KiB), so that the
  // events of groups that do not vote stay within a small part of the cache.
  struct Vote {
    uint64_t votes = 0;
    uint32_t id = 0;  // the candidate: key id and generation in the counting KeyTable
    uint32_t generation = 0;
    size_t hash = 0;  // KeyTable::Hash of its bytes
    std::string key;  // its bytes
  };
  // The vote of an event that is not the candidate's under its id and generation.
  static void Cast(const KeyTable& keys, uint32_t id, Vote* v);

  std::vector<uint64_t> events_ = std::vector<uint64_t>(kKeyGroups);
  std::vector<Vote> votes_ = std::vector<Vote>(kKeyGroups);
  uint64_t first_seq_ = 0;
};

}  // namespace logtide
