// The merging rule of session windows (Flink's MergingWindowSet), apart from any state: given
// one key's sessions, sorted by start, disjoint and not touching, which of them a new window
// [start, end) merges with (every one it overlaps or touches: a run of the list) and the
// bounds of the merged session.
#pragma once

#include <algorithm>
#include <cstddef>

#include "time/timestamp.h"

namespace logtide {

struct SessionMerge {
  size_t first = 0, last = 0;  // the run [first, last) merges; empty: a new session at first
  Nanos start = 0, end = 0;    // the merged session's bounds
};

// `sessions` is a sequence of items with .start and .end, as above.
template <typename List>
SessionMerge MergeWindow(const List& sessions, Nanos start, Nanos end) {
  SessionMerge m{0, 0, start, end};
  const size_t n = sessions.size();
  while (m.first < n && sessions[m.first].end < start) ++m.first;
  m.last = m.first;
  while (m.last < n && sessions[m.last].start <= end) {
    m.start = std::min(m.start, sessions[m.last].start);
    m.end = std::max(m.end, sessions[m.last].end);
    ++m.last;
  }
  return m;
}

}  // namespace logtide
