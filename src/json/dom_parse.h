// Whole JSON texts through simdjson's DOM parser, for the paths that need a text checked in
// full or a value's structure (objects and arrays read as values, refused lines, late lines).
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

namespace logtide {

// Parses `text` with the DOM parser into *out, reading integers beyond 64 bits as doubles (the
// nearest one, as the extractor's walk reads them) through a copy of the text in *copy.
// Returns simdjson's error code. REQUIRES: when `padded`, simdjson's padding follows the text.
simdjson::error_code ParseDom(simdjson::dom::parser& parser, std::string_view text, bool padded,
                              std::string* copy, simdjson::dom::element* out);

}  // namespace logtide
