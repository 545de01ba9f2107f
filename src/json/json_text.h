// JSON text, both ways: writing strings with escapes, numbers (integers exactly, doubles in
// shortest round-trip form) and any byte string as a valid JSON string; and reading what flags
// and expressions write by hand: UTF-8 sequences and JSON string literals with their escapes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "json/value.h"
#include "util/status.h"

namespace logtide {

// Returns the length of the valid UTF-8 sequence at the start of `s` and its code point in
// *cp; 0 when it is not one (a stray continuation byte, an overlong form, a surrogate, past
// U+10FFFF, or cut short). REQUIRES: !s.empty().
size_t DecodeUtf8(std::string_view s, char32_t* cp);
// Returns the offset of the first byte of `s` that is not part of valid UTF-8, or npos.
size_t FindInvalidUtf8(std::string_view s);

// Decodes the JSON string whose opening quote is text[0] into *out (its escapes: \" \\ \/ \b
// \f \n \r \t and \uXXXX, a surrogate pair as one code point) and sets *end to the offset
// just past its closing quote. Other bytes are taken as they are, control characters too; they
// must be valid UTF-8. On error, *error_at is the 0-based offset in `text` the message is about
// (the opening quote when there is no closing one). REQUIRES: text[0] == '"'.
Status DecodeJsonString(std::string_view text, std::string* out, size_t* end, size_t* error_at);

// Appends `s` as a quoted JSON string. Invalid UTF-8 bytes become U+FFFD, so the result is
// always valid JSON.
void AppendJsonString(std::string_view s, std::string* out);
void AppendInt128(__int128 v, std::string* out);
// Appends a double in its shortest round-trip form; non-finite values are written as null.
void AppendDouble(double d, std::string* out);
// Appends a value as JSON: raw values (objects, arrays) verbatim.
void AppendJsonValue(const ValueRef& v, std::string* out);

}  // namespace logtide
