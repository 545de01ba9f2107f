#include "json/json_text.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace logtide {
namespace {

// Reads four hex digits at text[*pos] into *cp, advancing *pos past them.
bool Hex4(std::string_view text, size_t* pos, unsigned* cp) {
  if (*pos + 4 > text.size()) return false;
  unsigned v = 0;
  for (size_t i = *pos; i < *pos + 4; ++i) {
    const char c = text[i];
    const unsigned d = c >= '0' && c <= '9'   ? static_cast<unsigned>(c - '0')
                       : c >= 'a' && c <= 'f' ? static_cast<unsigned>(c - 'a' + 10)
                       : c >= 'A' && c <= 'F' ? static_cast<unsigned>(c - 'A' + 10)
                                              : 16;
    if (d == 16) return false;
    v = v << 4 | d;
  }
  *cp = v;
  *pos += 4;
  return true;
}

void AppendUtf8(unsigned cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | cp >> 6));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | cp >> 12));
    out->push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | cp >> 18));
    out->push_back(static_cast<char>(0x80 | (cp >> 12 & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

size_t DecodeUtf8(std::string_view s, char32_t* cp) {
  const auto c = static_cast<unsigned char>(s[0]);
  const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || n > s.size()) return 0;
  char32_t v = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[k]);
    if ((b & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b & 0x3F);
  }
  constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < kMin[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return n;
}

size_t FindInvalidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    char32_t cp;
    const size_t n = DecodeUtf8(s.substr(i), &cp);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

Status DecodeJsonString(std::string_view text, std::string* out, size_t* end, size_t* error_at) {
  const auto error = [&](size_t at, std::string what) {
    *error_at = at;
    return Status::InvalidArgument(std::move(what));
  };
  out->clear();
  size_t pos = 1;
  while (pos < text.size() && text[pos] != '"') {
    const char c = text[pos];
    if (static_cast<unsigned char>(c) >= 0x80) {
      char32_t cp;
      const size_t n = DecodeUtf8(text.substr(pos), &cp);
      if (n == 0) return error(pos, "not valid UTF-8");
      out->append(text.substr(pos, n));
      pos += n;
      continue;
    }
    ++pos;
    if (c != '\\') {
      out->push_back(c);
      continue;
    }
    if (pos >= text.size()) break;
    const char e = text[pos++];
    switch (e) {
      case '"':
      case '\\':
      case '/':
        out->push_back(e);
        break;
      case 'n':
        out->push_back('\n');
        break;
      case 't':
        out->push_back('\t');
        break;
      case 'r':
        out->push_back('\r');
        break;
      case 'b':
        out->push_back('\b');
        break;
      case 'f':
        out->push_back('\f');
        break;
      case 'u': {
        unsigned cp = 0;
        if (!Hex4(text, &pos, &cp)) return error(pos, "\\u needs four hex digits");
        if (cp >= 0xD800 && cp < 0xDC00) {  // a high surrogate: its low one must follow
          unsigned low = 0;
          if (text.substr(pos, 2) != "\\u" || (pos += 2, !Hex4(text, &pos, &low)) ||
              low < 0xDC00 || low >= 0xE000) {
            return error(pos, "\\u escapes half of a surrogate pair");
          }
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp < 0xE000) {
          return error(pos, "\\u escapes half of a surrogate pair");
        }
        AppendUtf8(cp, out);
        break;
      }
      default:
        return error(pos - 1, fmt::format("unknown escape \\{}", e));
    }
  }
  if (pos >= text.size()) return error(0, "the string has no closing '\"'");
  *end = pos + 1;
  return Status::Ok();
}

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
    char32_t cp;
    const size_t n = DecodeUtf8(s.substr(i), &cp);
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
