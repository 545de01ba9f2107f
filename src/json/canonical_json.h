// Canonical JSON text: one spelling for every JSON value, so that values equal as JSON (an
// object's keys in any order, 2e2 and 200, "\u0041" and "A") compare and group as equal bytes.
#pragma once

#include <string>

namespace simdjson::dom {
class element;
}

namespace logtide {

// Appends `e` as canonical JSON: no spaces; object keys sorted by their bytes, a key that
// appears twice keeping its last value (as everywhere in logtide); numbers as ValueRef::Number
// reads them (an integral value within int64 as an integer, so 2e2 is 200; others in the
// shortest form that reads back the same double); strings with the fewest escapes (only '"',
// '\', and control characters).
void AppendCanonicalJson(const simdjson::dom::element& e, std::string* out);

}  // namespace logtide
