// GroupLoad (issue 30's skew warning): events per key group, and a vote that names a key only
// with a true lower bound on its events.
#include "keys/group_load.h"

#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <random>
#include <string>

#include "keys/key_table.h"

namespace logtide {
namespace {

// Interns `key`, counts one event of it, and releases it when nothing holds it, as the engine
// does.
void Event(KeyTable* keys, GroupLoad* load, const std::string& key) {
  const uint32_t id = keys->Intern(key);
  load->Add(*keys, id, 0);  // seq 0: every event votes
  keys->ReleaseIfUnused(id);
}

TEST_CASE("group load: the heaviest group, the lowest of equals, and its vote") {
  KeyTable keys;
  GroupLoad load;
  CHECK(load.total() == 0);
  CHECK(load.heaviest().events == 0);
  // "a" and "b" are in one group, "c" in another (searched for, not assumed).
  std::string a = "a", b, c;
  for (int i = 0; b.empty() || c.empty(); ++i) {
    const std::string k = "k" + std::to_string(i);
    if (KeyGroupOf(k) == KeyGroupOf(a)) {
      if (b.empty()) b = k;
    } else if (c.empty()) {
      c = k;
    }
  }
  Event(&keys, &load, a);
  Event(&keys, &load, b);  // cancels a
  Event(&keys, &load, c);
  Event(&keys, &load, c);
  CHECK(load.total() == 4);
  GroupLoad::Heaviest h = load.heaviest();
  CHECK(h.group == std::min(KeyGroupOf(a), KeyGroupOf(c)));
  CHECK(h.events == 2);
  Event(&keys, &load, b);
  h = load.heaviest();
  CHECK(h.group == KeyGroupOf(a));
  CHECK(h.events == 3);
  CHECK(h.key == b);
  CHECK(h.votes == 1);
}

TEST_CASE("group load: a key's id given to another key later is another key") {
  KeyTable keys;
  GroupLoad load;
  std::string a = "a", b;
  for (int i = 0; b.empty(); ++i) {
    const std::string k = "k" + std::to_string(i);
    if (KeyGroupOf(k) == KeyGroupOf(a)) b = k;
  }
  const uint32_t ia = keys.Intern(a);
  load.Add(keys, ia, 0);
  load.Add(keys, ia, 0);
  keys.ReleaseIfUnused(ia);
  const uint32_t ib = keys.Intern(b);
  REQUIRE(ib == ia);  // the id is recycled
  load.Add(keys, ib, 0);
  load.Add(keys, ib, 0);
  load.Add(keys, ib, 0);
  const GroupLoad::Heaviest h = load.heaviest();
  CHECK(h.key == b);
  CHECK(h.votes == 1);  // a, a, then b three times: b cancels both and leads by one
}

TEST_CASE("group load: a key removed and added again is the same key to the vote") {
  KeyTable keys;
  GroupLoad load;
  for (int i = 0; i < 5; ++i) Event(&keys, &load, "alice");  // a new generation each time
  const GroupLoad::Heaviest h = load.heaviest();
  CHECK(h.key == "alice");
  CHECK(h.votes == 5);
}

TEST_CASE("group load: the key voted for received at least its votes; a majority key wins") {
  std::mt19937_64 rng(30);
  for (int round = 0; round < 200; ++round) {
    KeyTable keys;
    GroupLoad load;
    std::map<std::string, uint64_t> counts;
    const int n = 1 + static_cast<int>(rng() % 2000);
    const bool majority = round % 2 == 0;  // key "k0" takes 60% of the events
    for (int i = 0; i < n; ++i) {
      const std::string key =
          "k" + std::to_string(majority && rng() % 10 < 6 ? 0 : rng() % 8000);
      ++counts[key];
      Event(&keys, &load, key);
    }
    CHECK(load.total() == static_cast<uint64_t>(n));
    const GroupLoad::Heaviest h = load.heaviest();
    CHECK(counts[std::string(h.key)] >= h.votes);
    uint64_t in_group = 0;
    for (const auto& [k, c] : counts) in_group += KeyGroupOf(k) == h.group ? c : 0;
    CHECK(h.events == in_group);
    if (2 * counts["k0"] > in_group && KeyGroupOf("k0") == h.group) {
      CHECK(h.key == "k0");
    }
  }
}

TEST_CASE("group load: only a group with a quarter of the events so far votes") {
  KeyTable keys;
  GroupLoad load;
  load.set_first_seq(100);  // a resumed run: its first event is number 101
  // Nine keys of nine groups other than alice's, one event each.
  std::vector<std::string> others;
  std::set<uint32_t> groups = {KeyGroupOf("alice")};
  for (int i = 0; others.size() < 9; ++i) {
    const std::string k = "k" + std::to_string(i);
    if (groups.insert(KeyGroupOf(k)).second) others.push_back(k);
  }
  uint64_t seq = 100;
  auto add = [&](const std::string& key) {
    const uint32_t id = keys.Intern(key);
    keys.Ref(id);  // held, as a pane holds it
    load.Add(keys, id, ++seq);
  };
  // alice's first event is the run's 4th: her group has 1 of 4 (it votes); her second is the
  // 11th, 2 of 11 (it does not).
  for (int i = 0; i < 3; ++i) add(others[i]);
  add("alice");
  for (int i = 3; i < 9; ++i) add(others[i]);
  add("alice");
  CHECK(load.total() == 11);
  const GroupLoad::Heaviest h = load.heaviest();
  CHECK(h.group == KeyGroupOf("alice"));
  CHECK(h.events == 2);
  CHECK(h.key == "alice");
  CHECK(h.votes == 1);
}

TEST_CASE("group load: the loads of threads with disjoint groups join into one") {
  KeyTable k1, k2;
  GroupLoad one, two, joined;
  Event(&k1, &one, "alice");
  Event(&k1, &one, "alice");
  Event(&k2, &two, "bob");
  joined.Absorb(one);
  joined.Absorb(two);
  CHECK(joined.total() == 3);
  CHECK(joined.heaviest().group == KeyGroupOf("alice"));
  CHECK(joined.heaviest().key == "alice");
  CHECK(joined.heaviest().votes == 2);
}

TEST_CASE("a key table keeps each key's group") {
  KeyTable keys;
  const std::string_view alice("\x04" "alice" "\x00", 7);
  const uint32_t id = keys.Intern(alice);
  CHECK(keys.encoded(id) == alice);
  CHECK(keys.group(id) == 3178);  // the pinned vector of tests/keys/key_group_test.cc
}

}  // namespace
}  // namespace logtide
