// Field paths: the object keys and array indices that lead from a line's top-level object to a
// value, as users write them and in one canonical text.
//
// Written forms (flags and expressions): `req.method` and jq's `.req.method`; a key holding a
// dot, a bracket or a space at its ends, quoted as a JSON string: `."log.level"` or
// `.["log.level"]`; an array element by its index, negative from the end: `tags[0]`,
// `.tags[-1]`. The canonical text writes plain keys as they are, joined by '.', other keys as
// `["..."]` and indices as `[N]`: `req.method`, `["log.level"]`, `tags[0].name`. So a path of
// plain keys reads as it always did, and equal paths have equal texts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace logtide {

struct PathSegment {
  std::string key;      // when !is_index
  int64_t index = 0;    // when is_index: from the start if >= 0, from the end (-1: last) if < 0
  bool is_index = false;
};
using FieldPath = std::vector<PathSegment>;

// Parses a path written in any of the forms above, from its start: the first segment may be a
// plain key, ".key", ."key", .["key"] or ["key"]. Spaces and tabs around plain keys are
// dropped ("service, host" split at the comma gives " host": "host"). Stops at the end of
// `text`; on error, *error_at is the 0-based byte offset the message is about, and
// *empty_segment (when given) says whether the error is a segment with no key (a..b, a.).
Status ParseFieldPath(std::string_view text, FieldPath* out, size_t* error_at,
                      bool* empty_segment = nullptr);

// The canonical text of a path (above). REQUIRES: !path.empty().
std::string FieldPathText(const FieldPath& path);

// The name a path gives an output field: its keys as they are, joined by '.', and its indices
// as [N] ("log.level" for ."log.level", "tags[0]" for .tags[0]). Equal to the canonical text
// for a path of plain keys.
std::string FieldPathName(const FieldPath& path);
// The same for a path in canonical text; `text` itself when it does not parse.
std::string FieldPathName(std::string_view text);

// Whether `key` is written as it is in a path's canonical text.
bool IsPlainKey(std::string_view key);

}  // namespace logtide
