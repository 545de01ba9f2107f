// The bytes that must be readable past the end of a line handed to json/: simdjson reads up to
// its SIMDJSON_PADDING past a document's end, and the extractor reads keys and strings eight
// bytes at a time (checked in extractor.cc).
#pragma once

#include <cstddef>

namespace logtide {

inline constexpr size_t kJsonPadding = 64;

}  // namespace logtide
