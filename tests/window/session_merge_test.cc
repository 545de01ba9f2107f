#include "window/session_merge.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <vector>

namespace logtide {
namespace {

struct Interval {
  Nanos start, end;
  bool operator==(const Interval& o) const { return start == o.start && end == o.end; }
};

// Sessions computed the plain way: every event's window, sorted, chained while they overlap or
// touch.
std::vector<Interval> Chain(std::vector<Nanos> times, Nanos gap) {
  std::sort(times.begin(), times.end());
  std::vector<Interval> out;
  for (Nanos t : times) {
    if (!out.empty() && t <= out.back().end) {
      out.back().end = std::max(out.back().end, t + gap);
    } else {
      out.push_back(Interval{t, t + gap});
    }
  }
  return out;
}

TEST_CASE("MergeWindow: sessions built event by event, in any order, equal the chained windows") {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const Nanos gap = 1 + static_cast<Nanos>(rng() % 10);
    std::vector<Nanos> times;
    std::vector<Interval> sessions;
    const int events = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < events; ++i) {
      const Nanos t = static_cast<Nanos>(rng() % 200);
      times.push_back(t);
      const SessionMerge m = MergeWindow(sessions, t, t + gap);
      REQUIRE(m.first <= m.last);
      REQUIRE(m.last <= sessions.size());
      CHECK(m.start <= t);
      CHECK(m.end >= t + gap);
      sessions.erase(sessions.begin() + static_cast<long>(m.first),
                     sessions.begin() + static_cast<long>(m.last));
      sessions.insert(sessions.begin() + static_cast<long>(m.first), Interval{m.start, m.end});
    }
    INFO("trial " << trial << ", gap " << gap);
    CHECK(sessions == Chain(times, gap));
  }
}

TEST_CASE("MergeWindow: touching windows merge; a window between two sessions joins them") {
  std::vector<Interval> sessions = {{0, 10}, {20, 30}};
  SessionMerge m = MergeWindow(sessions, 10, 15);  // touches the first only
  CHECK((m.first == 0 && m.last == 1 && m.start == 0 && m.end == 15));
  m = MergeWindow(sessions, 10, 20);  // touches both
  CHECK((m.first == 0 && m.last == 2 && m.start == 0 && m.end == 30));
  m = MergeWindow(sessions, 12, 18);  // between: a new session at index 1
  CHECK((m.first == 1 && m.last == 1 && m.start == 12 && m.end == 18));
  m = MergeWindow(sessions, 40, 50);
  CHECK((m.first == 2 && m.last == 2));
}

}  // namespace
}  // namespace logtide
