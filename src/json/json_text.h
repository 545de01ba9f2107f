// Writing JSON text: strings with escapes, numbers (integers exactly, doubles in shortest
// round-trip form), and any byte string as a valid JSON string.
#pragma once

#include <string>
#include <string_view>

#include "json/value.h"

namespace logtide {

// Appends `s` as a quoted JSON string. Invalid UTF-8 bytes become U+FFFD, so the result is
// always valid JSON.
void AppendJsonString(std::string_view s, std::string* out);
void AppendInt128(__int128 v, std::string* out);
// Appends a double in its shortest round-trip form; non-finite values are written as null.
void AppendDouble(double d, std::string* out);
// Appends a value as JSON: raw values (objects, arrays) verbatim.
void AppendJsonValue(const ValueRef& v, std::string* out);

}  // namespace logtide
