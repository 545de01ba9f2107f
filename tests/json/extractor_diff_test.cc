// The extractor's token walk against simdjson's On-Demand API (the way logtide read lines before
// it walked stage 1's tokens itself), on random lines, valid and broken; and the same lines
// indexed in runs against one by one.
#include <catch2/catch.hpp>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "json/extractor.h"
#include "json/ondemand_reference.h"
#include "json/structural_index.h"

namespace logtide {
namespace {

// Array indices too; the reference reads each array element once, so no two paths here name
// one element (other[0] and other[-1] would, in a one-element array: extractor_test.cc checks
// such paths).
const char* const kPaths[] = {"ts",       "svc",        "n",     "x",         "req.m", "req.id",
                              "a.b.c",    "arr",        "a[-1]", "other[0]",  "other[2].m",
                              "req[-2].id"};
const char* const kKeys[] = {"ts",       "svc",       "n",       "x",   "req", "m",
                             "id",       "a",         "b",       "c",   "arr", "other",
                             "t\\u0073", "sv\\u0063", "\\u006e", "tsx", "s",   "n\\n"};

// Under the sanitizers (ten times slower) the random tests run a quarter of their lines; the
// regular build runs them all.
#ifdef LOGTIDE_SANITIZED
constexpr int kShare = 4;
#else
constexpr int kShare = 1;
#endif

struct Gen {
  std::mt19937_64 rng;
  explicit Gen(uint64_t seed) : rng(seed) {}
  int Below(int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); }
  std::string Space() {
    static const char* const kSpaces[] = {"", "", "", " ", "\t", "  ", " \t "};
    return kSpaces[Below(7)];
  }
  std::string Number() {
    static const char* const kNumbers[] = {"0",
                                           "-0",
                                           "7",
                                           "-7",
                                           "42.5",
                                           "0.1",
                                           "7.33",
                                           "22.61",
                                           "1e2",
                                           "1E+2",
                                           "-1.5e-3",
                                           "2.0",
                                           "123456789012345678",
                                           "1234567890123456789",
                                           "9223372036854775807",
                                           "9223372036854775808",
                                           "-9223372036854775808",
                                           "-9223372036854775809",
                                           "18446744073709551615",
                                           "18446744073709551616",
                                           "1e400",
                                           "-1e400",
                                           "1e-400",
                                           "5e-324",
                                           "0.30000000000000004",
                                           "123456789.123456789",
                                           "1.7976931348623157e308",
                                           "4.9e-324",
                                           "0.000000000000000000000000001",
                                           "9007199254740993",
                                           "9007199254740993.0",
                                           "1700000000.25",
                                           "01",
                                           "1.",
                                           ".5",
                                           "-",
                                           "+1",
                                           "1e",
                                           "1e+",
                                           "--1",
                                           "1.2.3",
                                           "0x10",
                                           "1a"};
    if (Below(3) == 0) {  // a random decimal
      std::string s = Below(4) == 0 ? "-" : "";
      s += std::to_string(rng() % 100000);
      if (Below(2) == 0) s += "." + std::to_string(rng() % 1000000);
      if (Below(5) == 0) s += "e" + std::to_string(Below(40) - 20);
      return s;
    }
    return kNumbers[Below(sizeof(kNumbers) / sizeof(kNumbers[0]))];
  }
  std::string String() {
    static const char* const kParts[] = {"a",
                                         "GET",
                                         "2024-05-01T10:00:00Z",
                                         "\\\"",
                                         "\\\\",
                                         "\\n",
                                         "\\u00e9",
                                         "\\ud83d\\ude00",
                                         "\xc3\xa9",
                                         " ",
                                         "\\/",
                                         "\\t",
                                         "\\u0000",
                                         "0123456789abcdef",
                                         "\\x",
                                         "\\ud83d",
                                         "\\u12"};
    std::string s = "\"";
    for (int i = Below(4); i > 0; --i) s += kParts[Below(Below(3) == 0 ? 17 : 14)];
    return s + "\"";
  }
  std::string Value(int depth) {
    switch (Below(depth > 2 ? 6 : 8)) {
      case 0:
      case 1:
        return Number();
      case 2:
      case 3:
        return String();
      case 4: {
        static const char* const kAtoms[] = {"true", "false", "null", "nul", "tru", "nulls"};
        return kAtoms[Below(Below(4) == 0 ? 6 : 3)];
      }
      case 5:
        return Below(2) == 0 ? "{}" : "[]";
      case 6:
        return Object(depth + 1);
      default: {
        std::string s = "[" + Space();
        for (int i = Below(4); i > 0; --i) s += Value(depth + 1) + Space() + (i > 1 ? "," : "");
        return s + "]";
      }
    }
  }
  std::string Object(int depth) {
    std::string s = "{" + Space();
    const int fields = Below(7);
    for (int i = 0; i < fields; ++i) {
      if (i > 0) s += "," + Space();
      s += "\"" + std::string(kKeys[Below(sizeof(kKeys) / sizeof(kKeys[0]))]) + "\"" + Space() +
           ":" + Space() + Value(depth) + Space();
    }
    return s + "}";
  }
  // A line: an object, broken by one edit in one line of `broken_one_in`.
  std::string Line(int broken_one_in = 3) {
    std::string s = Space() + Object(0) + Space();
    if (Below(broken_one_in) == 0) {
      static const char kBytes[] = "{}[]:,\"\\ ax0-.e\t";
      const size_t at = static_cast<size_t>(Below(static_cast<int>(s.size()) + 1));
      switch (Below(3)) {
        case 0:
          if (at < s.size()) s.erase(at, 1);
          break;
        case 1:
          s.insert(at, 1, kBytes[Below(sizeof(kBytes) - 1)]);
          break;
        default:
          if (at < s.size()) s[at] = kBytes[Below(sizeof(kBytes) - 1)];
      }
    }
    return s;
  }
};

TEST_CASE("the token walk agrees with simdjson On-Demand on random lines") {
  FieldExtractor ex;
  Reference ref;
  const int n = static_cast<int>(sizeof(kPaths) / sizeof(kPaths[0]));
  for (int i = 0; i < n; ++i) {
    int slot;
    REQUIRE(ex.AddPath(kPaths[i], &slot).ok());
    ref.Add(kPaths[i], slot);
  }
  REQUIRE(ex.Finish().ok());
  Gen gen(20261129);
  JsonChecker checker;
  int accepted = 0, refused = 0, stricter = 0, found_in_arrays = 0;
  for (int iter = 0; iter < 200000 / kShare; ++iter) {
    const std::string line = gen.Line();
    std::string padded = line + std::string(FieldExtractor::kPadding, ' ');
    std::vector<ValueRef> want(n, ValueRef::Null()), got;
    const bool ref_ok = ref.Extract(padded, line.size(), &want);
    const bool ok = ex.Extract(padded.data(), line.size(), padded.size(), &got).ok();
    INFO(line);
    if (ok) {
      REQUIRE(ref_ok);  // never more lenient than On-Demand
      INFO(Show(got) + " vs " + Show(want));
      for (int i = 0; i < n; ++i) REQUIRE(Same(got[i], want[i]));
      for (int i = 0; i < n; ++i) found_in_arrays += std::string_view(kPaths[i]).find('[') !=
                                                         std::string_view::npos && !got[i].is_null();
      ++accepted;
    } else if (ref_ok) {
      // Stricter only where On-Demand lets invalid JSON through (an unread value's brackets).
      REQUIRE_FALSE(checker.IsValid(line));
      ++stricter;
    } else {
      ++refused;
    }
  }
  // The generator must exercise both sides (these are its mix, not the code's answers).
  CHECK(accepted > 50000 / kShare);
  CHECK(refused > 20000 / kShare);
  CHECK(found_in_arrays > 1000 / kShare);  // values the paths with indices found
  WARN("accepted " << accepted << ", refused " << refused << ", stricter than On-Demand "
                   << stricter << ", values found in arrays " << found_in_arrays);
}

TEST_CASE("lines give the same results indexed in a run as one by one") {
  FieldExtractor ex;
  const int n = static_cast<int>(sizeof(kPaths) / sizeof(kPaths[0]));
  for (int i = 0; i < n; ++i) {
    int slot;
    REQUIRE(ex.AddPath(kPaths[i], &slot).ok());
  }
  REQUIRE(ex.Finish().ok());
  Gen gen(7);
  StructuralIndex index;
  int indexed = 0, not_indexed = 0;  // runs whose first piece stage 1 took, or refused
  for (int block = 0; block < 400 / kShare; ++block) {
    // A run of lines ended by "\n" or "\r\n"; a quarter of the runs hold a line that stops
    // stage 1 for the whole run (a raw control character, invalid UTF-8 or a lone quote).
    std::vector<std::string> lines;
    std::string run;
    const int count = 1 + gen.Below(gen.Below(4) == 0 ? 1500 : 300);  // some runs of pieces
    const int spoilt = gen.Below(4) == 0 ? gen.Below(count) : -1;
    for (int i = 0; i < count; ++i) {
      std::string line = gen.Line(60);
      if (i == spoilt) {
        static const char* const kSpoilers[] = {"\"\x01\"", "\"\xff\"", "\""};
        line.insert(line.size() / 2, kSpoilers[gen.Below(3)]);
      }
      lines.push_back(line);
      run += line + (gen.Below(4) == 0 ? "\r\n" : "\n");
    }
    run.append(FieldExtractor::kPadding, ' ');
    index.SetRun(run.data(), run.size() - FieldExtractor::kPadding);
    size_t pos = 0;
    bool first = true;
    for (const std::string& line : lines) {
      std::string alone = line + std::string(FieldExtractor::kPadding, ' ');
      std::vector<ValueRef> a, b;
      const Status in_run = ex.Extract(run.data() + pos, line.size(), run.size() - pos, &a, &index);
      const std::string a_shown = Show(a);
      if (first) {
        (index.Covers(run.data(), line.size()) ? indexed : not_indexed)++;
        first = false;
      }
      const Status by_itself = ex.Extract(alone.data(), line.size(), alone.size(), &b);
      INFO(line);
      REQUIRE(in_run.ok() == by_itself.ok());
      REQUIRE(in_run.message() == by_itself.message());
      if (in_run.ok()) REQUIRE(a_shown == Show(b));  // (values of a bad line are unspecified)
      pos += line.size() + (run[pos + line.size()] == '\r' ? 2 : 1);
    }
  }
  // Both paths ran (the generator's mix).
  CHECK(indexed > 100 / kShare);
  WARN("runs indexed " << indexed << ", refused by stage 1 " << not_indexed);
  CHECK(not_indexed > 20 / kShare);
}

// Deferred slots (FieldExtractor::Defer, for --where) must not change what a line reads as:
// Extract then ExtractRest gives the values and the verdict one eager Extract gives, and the
// slots not deferred are read by Extract alone.
TEST_CASE("deferred slots read as eager ones") {
  const int n = static_cast<int>(sizeof(kPaths) / sizeof(kPaths[0]));
  Gen gen(20261201);
  int checked = 0, bad_in_rest = 0;
  for (int round = 0; round < 24 / kShare; ++round) {
    const int mask = 1 + gen.Below((1 << n) - 1);  // which slots are deferred
    FieldExtractor eager, lazy;
    for (int i = 0; i < n; ++i) {
      int slot;
      REQUIRE(eager.AddPath(kPaths[i], &slot, i == 0).ok());
      REQUIRE(lazy.AddPath(kPaths[i], &slot, i == 0).ok());
      if (mask & (1 << i)) lazy.Defer(slot);
    }
    REQUIRE(eager.Finish().ok());
    REQUIRE(lazy.Finish().ok());
    for (int iter = 0; iter < 2000; ++iter) {
      const std::string line = gen.Line();
      std::string padded = line + std::string(FieldExtractor::kPadding, ' ');
      std::vector<ValueRef> want, got;
      const Status e = eager.Extract(padded.data(), line.size(), padded.size(), &want);
      const std::string want_shown = Show(want);
      Status l = lazy.Extract(padded.data(), line.size(), padded.size(), &got);
      INFO(line << " deferred mask " << mask);
      if (l.ok()) {
        if (e.ok()) {
          for (int i = 0; i < n; ++i) {
            if (!(mask & (1 << i))) REQUIRE(Same(got[i], want[i]));
          }
        }
        l = lazy.ExtractRest(padded.data(), line.size(), &got);
        bad_in_rest += !l.ok();
      }
      REQUIRE(l.ok() == e.ok());
      REQUIRE(l.message() == e.message());
      if (e.ok()) REQUIRE(Show(got) == want_shown);
      ++checked;
    }
  }
  // Some lines were bad only in a deferred value (the generator's mix, not the code's answer).
  CHECK(bad_in_rest > 0);
  WARN("lines checked " << checked << ", bad only in a deferred value " << bad_in_rest);
}

}  // namespace
}  // namespace logtide
