// Key groups: the fixed division of a job's keys that parallel apply routes by (Flink's key
// groups). A key's group is a function of its bytes alone, the same on every platform, in every
// run and for every number of threads, so a key always lands on the worker that owns its group.
//   group(key) = XXH64(key's EncodeValue bytes, seed 0) mod kKeyGroups
// Worker w of n owns the contiguous range [ceil(w * kKeyGroups / n), ceil((w + 1) * kKeyGroups
// / n)): the group g belongs to worker floor(g * n / kKeyGroups). Ranges of any n differ by at
// most one group, so n workers up to 64 get shares within 1/64 of each other.
// kKeyGroups is part of what a state means once rows carry their group: it never changes.
#pragma once

#include <cstdint>
#include <string_view>

namespace logtide {

// 4096: enough for 16 workers of 256 groups each (and 64 of 64), few enough that a per-group
// table (inspect's figures) stays small.
inline constexpr uint32_t kKeyGroups = 4096;

// Returns the key group of the key with these bytes (EncodeValue form: json/value.h).
uint32_t KeyGroupOf(std::string_view encoded_key);

// Returns the worker, of `workers`, that owns key group `group`.
// REQUIRES: group < kKeyGroups, 1 <= workers <= kKeyGroups.
inline uint32_t WorkerOfGroup(uint32_t group, uint32_t workers) {
  return static_cast<uint32_t>(uint64_t{group} * workers / kKeyGroups);
}

// The key groups worker `worker` of `workers` owns: [first, last).
struct KeyGroupRange {
  uint32_t first;
  uint32_t last;
};
inline KeyGroupRange GroupsOfWorker(uint32_t worker, uint32_t workers) {
  auto start = [&](uint64_t w) {
    return static_cast<uint32_t>((w * kKeyGroups + workers - 1) / workers);
  };
  return KeyGroupRange{start(worker), start(uint64_t{worker} + 1)};
}

// Which keys one of `count` workers owns (worker `index`): those of its groups. With one worker,
// every key, without hashing any.
struct KeyShard {
  uint32_t index = 0;
  uint32_t count = 1;
  bool Owns(std::string_view encoded_key) const {
    return count == 1 || WorkerOfGroup(KeyGroupOf(encoded_key), count) == index;
  }
};

}  // namespace logtide
