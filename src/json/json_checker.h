// Validating whole JSON texts, the slow path for lines that left the fast one: whether a late
// line is valid JSON, and why a line the extractor refused is not one JSON object.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "util/status.h"

namespace simdjson::dom {
class parser;
}

namespace logtide {

// Validates whole JSON texts, reusing one parser's buffers from text to text.
class JsonChecker {
 public:
  JsonChecker();
  // Nested up to `max_depth` arrays and objects (the default: as an input line may be).
  explicit JsonChecker(size_t max_depth);
  ~JsonChecker();
  // Returns true when `raw` is a complete, valid JSON text.
  bool IsValid(std::string_view raw);

 private:
  std::unique_ptr<simdjson::dom::parser> parser_;
};

// Returns the DataError (BadKind::kNotJson) for a line that is not one JSON object, naming the
// reason: simdjson's message for invalid JSON, or the kind of value the line is instead.
// `copy` is scratch space for ParseDom (json/dom_parse.h).
Status DescribeBadLine(simdjson::dom::parser& parser, std::string* copy, const char* line,
                       size_t size);

}  // namespace logtide
