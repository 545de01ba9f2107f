// A name read from a file (a state file's section name, which damage may have changed) made
// safe to print in a message: in double quotes, with '"', '\\', control bytes and every byte
// outside printable ASCII written as \xNN. With `backslash_quotes` (text a user wrote, such as
// an expression, where quotes are common): '"' and '\\' are written as \" and \\ instead.
#pragma once

#include <string>
#include <string_view>

namespace logtide {

inline std::string QuoteForMessage(std::string_view s, bool backslash_quotes = false) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out.push_back(ch);
    } else if (backslash_quotes && (c == '"' || c == '\\')) {
      out.push_back('\\');
      out.push_back(ch);
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  out.push_back('"');
  return out;
}

}  // namespace logtide
