// What the sketch tests share: how many values "a million" is, and a sketch's byte form.
#pragma once

#include <cstddef>
#include <string>

#include "util/bytes.h"

namespace logtide {

// A million values; a tenth under the sanitizers, where the regular build's run covers the rest.
#ifdef LOGTIDE_SANITIZED
inline constexpr size_t kMillion = 100000;
#else
inline constexpr size_t kMillion = 1000000;
#endif

// A sketch's saved bytes (its Snapshot).
template <typename Sketch>
std::string SketchBytes(const Sketch& s) {
  std::string b;
  ByteWriter w(&b);
  s.Snapshot(&w);
  return b;
}

}  // namespace logtide
