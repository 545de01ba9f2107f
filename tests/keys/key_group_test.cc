#include "keys/key_group.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "json/value.h"

namespace logtide {
namespace {

std::string Hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

std::string Key(const std::vector<ValueRef>& values) {
  std::string out;
  for (const ValueRef& v : values) EncodeValue(v, &out);
  return out;
}

// The groups were computed from the bytes alone, outside logtide, by the XXH64 of
// tests/state/state_rows.py (whose XXH64 of the empty input is the reference value
// 0xef46db3751d8e999): a change of the hash, its seed or kKeyGroups moves every key of every
// saved state to another worker, so these never change.
TEST_CASE("key groups are pinned to the bytes of the key") {
  struct Vector {
    std::string key;
    const char* hex;
    uint32_t group;
  };
  const std::vector<Vector> vectors = {
      {"", "", 2457},
      {Key({ValueRef::Null()}), "00", 1896},
      {Key({ValueRef::Bool(true)}), "02", 231},
      {Key({ValueRef::String("alice")}), "04616c69636500", 3178},
      {Key({ValueRef::String("bob")}), "04626f6200", 2070},
      {Key({ValueRef::Int(7)}), "03c01c0000000000008000", 1558},
      {Key({ValueRef::Int(-1)}), "03400fffffffffffff8000", 2108},
      {Key({ValueRef::String("api"), ValueRef::Int(2)}), "046170690003c0000000000000008000", 1459},
  };
  for (const Vector& v : vectors) {
    INFO(v.hex);
    CHECK(Hex(v.key) == v.hex);
    CHECK(KeyGroupOf(v.key) == v.group);
  }
}

TEST_CASE("worker ranges cover every key group once, in order, evenly") {
  for (uint32_t n : {1u, 2u, 3u, 4u, 7u, 16u, 64u, 4096u}) {
    INFO(n);
    uint32_t next = 0;
    for (uint32_t w = 0; w < n; ++w) {
      const KeyGroupRange r = GroupsOfWorker(w, n);
      CHECK(r.first == next);
      CHECK(r.last > r.first);
      // Shares differ by at most one group.
      CHECK(r.last - r.first >= kKeyGroups / n);
      CHECK(r.last - r.first <= (kKeyGroups + n - 1) / n);
      for (uint32_t g = r.first; g < r.last; ++g) REQUIRE(WorkerOfGroup(g, n) == w);
      next = r.last;
    }
    CHECK(next == kKeyGroups);
  }
  CHECK(GroupsOfWorker(1, 3).first == 1366);  // ceil(4096 / 3)
  CHECK(WorkerOfGroup(1365, 3) == 0);
  CHECK(WorkerOfGroup(1366, 3) == 1);
}

}  // namespace
}  // namespace logtide
