#include "lineformat/logfmt.h"

#include <fmt/format.h>

#include "util/quote.h"

namespace logtide {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

// The end of a key: a space, a tab, '=' or '"' (or the line's end).
size_t KeyEnd(std::string_view line, size_t i) {
  return scan::Find(
      line.data(), i, line.size(),
      [](uint64_t v) {
        return scan::Equal(v, ' ') | scan::Equal(v, '\t') | scan::Equal(v, '=') |
               scan::Equal(v, '"');
      },
      [](char c) { return IsSpace(c) || c == '=' || c == '"'; });
}

// The end of a bare value: a space or a tab (or the line's end).
size_t BareEnd(std::string_view line, size_t i) {
  return scan::Find(
      line.data(), i, line.size(),
      [](uint64_t v) { return scan::Equal(v, ' ') | scan::Equal(v, '\t'); }, IsSpace);
}

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

Status Bad(std::string message) { return Status::DataError(BadKind::kNotJson, std::move(message)); }

Status NoClosingQuote(std::string_view key) {
  return Bad(
      fmt::format("the quoted value of key {} has no closing double quote", QuoteForMessage(key)));
}

Status TextAfterQuote(std::string_view key, size_t i) {
  return Bad(fmt::format(
      "text after the closing double quote of key {}'s value at byte {} (a space must separate "
      "pairs)",
      QuoteForMessage(key), i + 1));
}

// The code unit of the escape \uXXXX at `i`, or -1 when there is none there.
int Utf16At(std::string_view line, size_t i) {
  if (i + 5 >= line.size() || line[i] != '\\' || line[i + 1] != 'u') return -1;
  int u = 0;
  for (size_t j = i + 2; j < i + 6; ++j) {
    const char c = line[j];
    if (!IsHex(c)) return -1;
    u = u * 16 + (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
  }
  return u;
}

// The length of the \uXXXX escape at `i` (12 for a surrogate pair), 0 when there is none
// there, and -1 for half a surrogate pair: JSON spells a character above U+FFFF as a pair, and
// half a pair is no character, so the line is bad rather than guessed at.
int UnicodeEscapeAt(std::string_view line, size_t i) {
  const int u = Utf16At(line, i);
  if (u < 0) return 0;
  if (u >= 0xDC00 && u <= 0xDFFF) return -1;
  if (u < 0xD800 || u > 0xDBFF) return 6;
  const int low = Utf16At(line, i + 6);
  return low >= 0xDC00 && low <= 0xDFFF ? 12 : -1;
}

Status LoneSurrogate(std::string_view key, std::string_view line, size_t i) {
  return Bad(fmt::format(
      "the quoted value of key {} has half a UTF-16 surrogate pair, {}, at byte {}",
      QuoteForMessage(key), line.substr(i, 6), i + 1));
}

}  // namespace

Status LogfmtToJson(std::string_view line, const KeySet& keys, JsonBuilder* out) {
  const size_t n = line.size();
  // Each byte of the line makes at most 7 of the object's ("k" alone: "\u00XX":true,).
  out->Begin(8 * n + 8);
  size_t i = 0;
  while (true) {
    while (i < n && IsSpace(line[i])) ++i;
    if (i == n) break;
    const size_t key_start = i;
    if (line[i] == '"' || line[i] == '{') {
      if (key_start == 0 && line[i] == '{') {
        return Bad("a logfmt line does not start with '{': the line looks like JSON (--input-format "
                   "ndjson reads it)");
      }
      return Bad(fmt::format("logfmt keys are not quoted: a key starts with '{}' at byte {}",
                             line[i], i + 1));
    }
    i = KeyEnd(line, i);
    const std::string_view key = line.substr(key_start, i - key_start);
    if (key.empty()) {
      return Bad(fmt::format("an empty key: '=' with no key before it at byte {}", i + 1));
    }
    if (i < n && line[i] == '"') {
      return Bad(fmt::format("a double quote inside the key {} at byte {}: logfmt keys are not "
                             "quoted",
                             QuoteForMessage(key), i + 1));
    }
    const bool wanted = keys.Has(key);
    if (!wanted) {
      // Read to the pair's end, for the line's errors. A quoted value ends at its first '"'
      // that no backslash takes: of the escapes below, only \" takes a '"'.
      if (i == n || IsSpace(line[i]) || ++i == n || IsSpace(line[i])) continue;
      if (line[i] != '"') {
        i = BareEnd(line, i);
        continue;
      }
      for (++i; i < n && line[i] != '"'; ++i) {
        if (line[i] != '\\' || i + 1 == n) continue;
        const int length = UnicodeEscapeAt(line, i);
        if (length < 0) return LoneSurrogate(key, line, i);
        i += length > 0 ? length - 1 : 1;
      }
      if (i == n) return NoClosingQuote(key);
      ++i;  // the closing quote
      if (i < n && !IsSpace(line[i])) return TextAfterQuote(key, i);
      continue;
    }
    out->Comma();
    out->String(key);
    out->Char(':');
    if (i == n || IsSpace(line[i])) {  // a bare key
      out->Raw("true");
      continue;
    }
    ++i;  // '='
    if (i == n || IsSpace(line[i])) {  // key= : the empty string
      out->Raw("\"\"");
      continue;
    }
    if (line[i] != '"') {
      const size_t value_start = i;
      i = BareEnd(line, i);
      out->Scalar(line.substr(value_start, i - value_start));
      continue;
    }
    // A quoted value: JSON's escapes are copied as they are.
    ++i;
    out->Char('"');
    while (true) {
      if (i == n) return NoClosingQuote(key);
      const char c = line[i];
      if (c == '"') break;
      if (c == '\\' && i + 1 < n) {
        const char e = line[i + 1];
        if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' ||
            e == 't') {
          out->Raw(line.substr(i, 2));
          i += 2;
          continue;
        }
        const int length = UnicodeEscapeAt(line, i);
        if (length < 0) return LoneSurrogate(key, line, i);
        if (length > 0) {
          out->Raw(line.substr(i, length));
          i += length;
          continue;
        }
      }
      out->Escaped(line.substr(i, 1));  // a backslash alone is a backslash
      ++i;
    }
    out->Char('"');
    ++i;  // the closing quote
    if (i < n && !IsSpace(line[i])) return TextAfterQuote(key, i);
  }
  return Status::Ok();
}

}  // namespace logtide
