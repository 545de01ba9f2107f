#include "json/json_text.h"

#include <charconv>
#include <cmath>

namespace logtide {
namespace {

// Returns the length of the valid UTF-8 sequence at s[i], or 0 if it is invalid.
size_t Utf8Length(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n;
  uint32_t cp;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) {
    n = 2;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4;
    cp = c & 0x07;
  } else
    return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    unsigned char cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  // Overlong forms, surrogates and code points past U+10FFFF are invalid.
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
      cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    return 0;
  }
  return n;
}

}  // namespace

void AppendJsonString(std::string_view s, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      size_t j = i + 1;
      while (j < s.size()) {
        unsigned char d = static_cast<unsigned char>(s[j]);
        if (d < 0x20 || d >= 0x80 || d == '"' || d == '\\') break;
        ++j;
      }
      out->append(s.data() + i, j - i);
      i = j;
      continue;
    }
    switch (c) {
      case '"':
        out->append("\\\"");
        ++i;
        continue;
      case '\\':
        out->append("\\\\");
        ++i;
        continue;
      case '\n':
        out->append("\\n");
        ++i;
        continue;
      case '\r':
        out->append("\\r");
        ++i;
        continue;
      case '\t':
        out->append("\\t");
        ++i;
        continue;
      case '\b':
        out->append("\\b");
        ++i;
        continue;
      case '\f':
        out->append("\\f");
        ++i;
        continue;
      default:
        break;
    }
    if (c < 0x20) {
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
      ++i;
      continue;
    }
    size_t n = Utf8Length(s, i);
    if (n == 0) {
      out->append("\xEF\xBF\xBD");
      ++i;
    } else {
      out->append(s.data() + i, n);
      i += n;
    }
  }
  out->push_back('"');
}

void AppendInt128(__int128 v, std::string* out) {
  char buf[48];
  char* p = buf + sizeof(buf);
  bool neg = v < 0;
  unsigned __int128 u =
      neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  do {
    *--p = static_cast<char>('0' + static_cast<int>(u % 10));
    u /= 10;
  } while (u != 0);
  if (neg) *--p = '-';
  out->append(p, static_cast<size_t>(buf + sizeof(buf) - p));
}

void AppendDouble(double d, std::string* out) {
  if (!std::isfinite(d)) {
    out->append("null");
    return;
  }
  char buf[32];
  // Outside [-2^63, 2^63) every double is integral, and the shortest form may be all digits
  // (2^64 as 18446744073709551616): an integer that readers of 64-bit integers refuse or read
  // differently. The exponent form reads back as the same double everywhere.
  const bool beyond_int64 = !(d >= -9223372036854775808.0 && d < 9223372036854775808.0);
  auto [end, ec] = beyond_int64
                       ? std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific)
                       : std::to_chars(buf, buf + sizeof(buf), d);
  out->append(buf, static_cast<size_t>(end - buf));
}

void AppendJsonValue(const ValueRef& v, std::string* out) {
  switch (v.type) {
    case ValueType::kNull:
      out->append("null");
      break;
    case ValueType::kFalse:
      out->append("false");
      break;
    case ValueType::kTrue:
      out->append("true");
      break;
    case ValueType::kNumber:
      if (v.is_int) {
        AppendInt128(v.i, out);
      } else {
        AppendDouble(v.d, out);
      }
      break;
    case ValueType::kString:
      AppendJsonString(v.s, out);
      break;
    case ValueType::kRaw:
      out->append(v.s);
      break;
  }
}

}  // namespace logtide
