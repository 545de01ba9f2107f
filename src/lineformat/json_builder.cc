#include "lineformat/json_builder.h"

namespace logtide {

bool IsJsonNumber(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  auto digit = [&](size_t k) { return k < n && s[k] >= '0' && s[k] <= '9'; };
  if (i < n && s[i] == '-') ++i;
  if (!digit(i)) return false;
  if (s[i] == '0') {
    ++i;
  } else {
    while (digit(i)) ++i;
  }
  if (i < n && s[i] == '.') {
    ++i;
    if (!digit(i)) return false;
    while (digit(i)) ++i;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digit(i)) return false;
    while (digit(i)) ++i;
  }
  return i == n;
}

void JsonBuilder::EscapeOne(unsigned char u) {
  *p_++ = '\\';
  switch (u) {
    case '"':
      *p_++ = '"';
      return;
    case '\\':
      *p_++ = '\\';
      return;
    case '\n':
      *p_++ = 'n';
      return;
    case '\r':
      *p_++ = 'r';
      return;
    case '\t':
      *p_++ = 't';
      return;
    default: {
      static const char kHex[] = "0123456789abcdef";
      *p_++ = 'u';
      *p_++ = '0';
      *p_++ = '0';
      *p_++ = kHex[u >> 4];
      *p_++ = kHex[u & 15];
    }
  }
}

}  // namespace logtide
