#include "json/json_checker.h"

#include <fmt/format.h>
#include <simdjson.h>

#include "json/dom_parse.h"
#include "json/line_format_hint.h"

namespace logtide {

JsonChecker::JsonChecker() : parser_(std::make_unique<simdjson::dom::parser>()) {}
JsonChecker::JsonChecker(size_t max_depth) : parser_(std::make_unique<simdjson::dom::parser>()) {
  // (Its capacity grows with the texts, keeping the depth.)
  if (parser_->allocate(size_t{1} << 16, max_depth) != simdjson::SUCCESS)
    parser_ = std::make_unique<simdjson::dom::parser>();
}
JsonChecker::~JsonChecker() = default;

bool JsonChecker::IsValid(std::string_view raw) {
  simdjson::dom::element e;
  std::string copy;  // used only for a text with integers beyond 64 bits
  return ParseDom(*parser_, raw, false, &copy, &e) == simdjson::SUCCESS;
}

// The slow path for a line the fast path refused: full validation, for a precise message.
Status DescribeBadLine(simdjson::dom::parser& parser, std::string* copy, const char* line,
                       size_t size) {
  simdjson::dom::element root;
  auto error = ParseDom(parser, std::string_view(line, size), false, copy, &root);
  if (error) {
    // A line of another format gets a hint at what it is (json/line_format_hint.h).
    const std::string_view hint = LineFormatHint(std::string_view(line, size));
    return Status::DataError(BadKind::kNotJson,
                             fmt::format("invalid JSON: {}{}{}", simdjson::error_message(error),
                                         hint.empty() ? "" : "; ", hint));
  }
  switch (root.type()) {
    case simdjson::dom::element_type::OBJECT:
      return Status::DataError(BadKind::kNotJson, "invalid JSON");
    case simdjson::dom::element_type::ARRAY:
      return Status::DataError(BadKind::kNotJson, "not a JSON object (an array)");
    case simdjson::dom::element_type::STRING:
      return Status::DataError(BadKind::kNotJson, "not a JSON object (a string)");
    case simdjson::dom::element_type::BOOL:
      return Status::DataError(BadKind::kNotJson, "not a JSON object (a boolean)");
    case simdjson::dom::element_type::NULL_VALUE:
      return Status::DataError(BadKind::kNotJson, "not a JSON object (null)");
    default:
      return Status::DataError(BadKind::kNotJson, "not a JSON object (a number)");
  }
}

}  // namespace logtide
