#include "output/result_order.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "json/value.h"

namespace logtide {
namespace {

struct Rec {
  Nanos start, end;
  std::string key;  // EncodeValue form
};

// The order as man/logtide.1 states it, computed the plain way: end, start, then the key's
// fields with CompareValues, decoding at every comparison.
bool Before(const Rec& a, const Rec& b) {
  if (a.end != b.end) return a.end < b.end;
  if (a.start != b.start) return a.start < b.start;
  std::string_view x = a.key, y = b.key;
  std::string xs, ys;
  while (!x.empty() && !y.empty()) {
    const int c = CompareValues(DecodeValue(&x, &xs), DecodeValue(&y, &ys));
    if (c != 0) return c < 0;
  }
  return false;
}

// Sorts `recs` with ResultOrder and checks the result against Before, pair by pair.
void CheckOrder(const std::vector<Rec>& recs) {
  ResultOrder order;
  order.Clear();
  for (const Rec& r : recs) order.Add(r.start, r.end, r.key);
  REQUIRE(order.size() == recs.size());
  const std::vector<uint32_t>& got = order.Sort();
  REQUIRE(got.size() == recs.size());
  std::vector<bool> seen(recs.size(), false);
  for (uint32_t i : got) {
    REQUIRE(i < recs.size());
    CHECK_FALSE(seen[i]);
    seen[i] = true;
  }
  size_t wrong = 0;
  for (size_t i = 1; i < got.size(); ++i) {
    if (!Before(recs[got[i - 1]], recs[got[i]])) ++wrong;
  }
  CHECK(wrong == 0);
}

std::string StringKey(const std::string& s) {
  std::string k;
  EncodeValue(ValueRef::String(s), &k);
  return k;
}

// Strings that tie in their first 8 bytes, differ only in length, are empty, or hold bytes
// above 0x7f: the cases where a prefix decides wrongly if anything is off.
std::string RandomText(std::mt19937_64& rng) {
  static const char* kHeads[] = {"",         "u",          "user0000",         "user00001",
                                 "abcdefgh", "abcdefghij", "\xc3\xa9t\xc3\xa9"};
  std::string s = kHeads[rng() % 7];
  const size_t tail = rng() % 6;
  for (size_t i = 0; i < tail; ++i) s.push_back(static_cast<char>('0' + rng() % 4));
  if (rng() % 10 == 0) s.push_back('\xff');
  return s;
}

// `windows` windows of distinct random string keys each (a firing never repeats a (window,
// key)), windows in order or shuffled.
std::vector<Rec> StringRecords(std::mt19937_64& rng, int windows, size_t per_window, bool shuffle) {
  std::vector<Rec> recs;
  for (int w = 0; w < windows; ++w) {
    std::vector<std::string> texts;
    while (texts.size() < per_window) {
      std::string t = RandomText(rng);
      if (std::find(texts.begin(), texts.end(), t) == texts.end()) texts.push_back(t);
    }
    const Nanos start = w * 60, end = start + 60;
    for (const std::string& t : texts) recs.push_back(Rec{start, end, StringKey(t)});
  }
  if (shuffle) std::shuffle(recs.begin(), recs.end(), rng);
  return recs;
}

TEST_CASE("ResultOrder: one string key, window by window (the radix sort for many keys)") {
  std::mt19937_64 rng(5);
  CheckOrder(StringRecords(rng, 1, 40, false));    // few keys: a comparison sort
  CheckOrder(StringRecords(rng, 3, 1500, false));  // many: radix on the prefix
}

TEST_CASE("ResultOrder: one string key, windows out of order") {
  std::mt19937_64 rng(6);
  CheckOrder(StringRecords(rng, 4, 300, true));
  // Two windows with the same end and different starts (session windows of one firing).
  std::vector<Rec> recs = {{10, 50, StringKey("b")},
                           {0, 50, StringKey("b")},
                           {0, 50, StringKey("a")},
                           {20, 40, StringKey("z")}};
  CheckOrder(recs);
}

TEST_CASE("ResultOrder: keys of several fields, numbers, null and no key at all") {
  std::mt19937_64 rng(7);
  std::vector<Rec> recs;
  for (int w = 0; w < 3; ++w) {
    for (int i = 0; i < 400; ++i) {
      std::string k;
      EncodeValue(ValueRef::String(RandomText(rng)), &k);
      const int kind = static_cast<int>(rng() % 4);
      if (kind == 0) EncodeValue(ValueRef::Int(static_cast<int64_t>(rng() % 7) - 3), &k);
      if (kind == 1) EncodeValue(ValueRef::Number(static_cast<double>(rng() % 7) / 2 - 1.5), &k);
      if (kind == 2) EncodeValue(ValueRef::Null(), &k);
      if (kind == 3) EncodeValue(ValueRef::String(RandomText(rng)), &k);
      recs.push_back(Rec{w * 60, w * 60 + 60, k});
    }
  }
  // Drop repeated (window, key) pairs: one firing has each once.
  std::sort(recs.begin(), recs.end(), [](const Rec& a, const Rec& b) {
    return std::tie(a.start, a.key) < std::tie(b.start, b.key);
  });
  recs.erase(
      std::unique(recs.begin(), recs.end(),
                  [](const Rec& a, const Rec& b) { return a.start == b.start && a.key == b.key; }),
      recs.end());
  std::shuffle(recs.begin(), recs.end(), rng);
  CheckOrder(recs);

  std::vector<Rec> numbers;
  for (int i = 0; i < 300; ++i) {
    std::string k;
    EncodeValue(ValueRef::Int(i * 7919 % 1000 - 500), &k);
    numbers.push_back(Rec{0, 60, k});
  }
  CheckOrder(numbers);

  std::vector<Rec> no_key = {{60, 120, ""}, {0, 60, ""}, {0, 120, ""}};
  CheckOrder(no_key);
}

TEST_CASE("ResultOrder: Clear starts a new set") {
  // The keys' bytes outlive Sort.
  const std::string a = StringKey("a"), b = StringKey("b"), x = StringKey("x");
  ResultOrder order;
  order.Add(0, 60, b);
  order.Add(0, 60, a);
  CHECK(order.Sort() == std::vector<uint32_t>{1, 0});
  order.Clear();
  order.Add(60, 120, x);
  CHECK(order.size() == 1);
  CHECK(order.Sort() == std::vector<uint32_t>{0});
}

}  // namespace
}  // namespace logtide
