#include "json/dom_parse.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace logtide {
namespace {

// Copies `text` to *out with "e0" after each integer outside int64's range that is not in a
// string, and returns true when there is one. simdjson 3.0.1's DOM parser refuses integers
// beyond 64 bits (NUMBER_ERROR); spelled with an exponent, such an integer is a double to it,
// the nearest one, as the walk reads it, and one in [2^63, 2^64) reads as the same double it
// gives. The copy is valid JSON exactly when the text is: "e0" after a whole run of digits
// (one not followed by a digit, '.', 'e', 'E', '+' or '-') keeps a number a number.
bool WidenBigIntegers(std::string_view text, std::string* out) {
  const auto in_number = [](char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
  };
  out->clear();
  bool widened = false;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    size_t j = i + 1;
    if (c == '"') {
      while (j < text.size() && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, text.size());
    } else if (in_number(c)) {
      while (j < text.size() && in_number(text[j])) ++j;
    }
    const std::string_view token = text.substr(i, j - i);
    out->append(token);
    int64_t v;
    const auto r = std::from_chars(token.data(), token.data() + token.size(), v);
    if (r.ec == std::errc::result_out_of_range && r.ptr == token.data() + token.size()) {
      out->append("e0");
      widened = true;
    }
    i = j;
  }
  return widened;
}

}  // namespace

simdjson::error_code ParseDom(simdjson::dom::parser& parser, std::string_view text, bool padded,
                              std::string* copy, simdjson::dom::element* out) {
  const auto error = parser.parse(text.data(), text.size(), !padded).get(*out);
  if (error != simdjson::NUMBER_ERROR || !WidenBigIntegers(text, copy)) return error;
  return parser.parse(*copy).get(*out);
}

}  // namespace logtide
