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

// One grammar, two places a path is written. Alone (a flag's value) the path is all of the
// text and a plain key runs up to the next '.' or '['. In an expression a plain key is an
// identifier (ASCII letters, digits and '_', not starting with a digit), no space comes before
// a '.' or a '[' that continues the path, and the path ends at the first character that cannot
// continue it (`.a.b == 1` ends before " =="). Everything else, and every message, is shared:
// quoted keys are JSON strings (json_text.h, DecodeJsonString), spaces may follow a '.' and
// stand inside [ ], and an index is an integer.

// Parses a path written alone in any of the forms above, from its start: the first segment may
// be a plain key, ".key", ."key", .["key"] or ["key"]. Spaces and tabs around plain keys are
// dropped ("service, host" split at the comma gives " host": "host"). Stops at the end of
// `text`; on error, *error_at is the 0-based byte offset the message is about.
Status ParseFieldPath(std::string_view text, FieldPath* out, size_t* error_at);

// Parses the path at the start of `text` as an expression writes it: .a.b, ."log.level",
// .["x"], .tags[0], .tags[-1], or a bare a.b; *end is the offset just past it. On error,
// *error_at is the 0-based byte offset in `text` the message is about.
// REQUIRES: text starts with '.' or an identifier.
Status ParseExprFieldPath(std::string_view text, FieldPath* out, size_t* end, size_t* error_at);

// A field path as a user may write it in a flag, made canonical (FieldPathText): spaces around
// it and around its segments dropped ("service, host" split by the caller gives " host":
// "host"), and jq's leading '.' accepted (".req.method" is "req.method"). Fails with a hint on
// a leading '$' (a shell or Miller habit), on an empty path, and otherwise with ParseFieldPath's
// message and its 1-based byte: `--by "a..b": expected a field name after '.' (at byte 3)`.
// `flag` names the flag in messages.
Status NormalizeFieldPath(std::string_view flag, std::string_view text, std::string* out);

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

// Whether `c` may start, or continue, an identifier: what a plain key is in an expression.
inline bool IsIdentifierStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool IsIdentifierChar(char c) { return IsIdentifierStart(c) || (c >= '0' && c <= '9'); }

}  // namespace logtide
