#include "plan/sql_text.h"

#include <fmt/format.h>

#include <algorithm>

#include "json/json_text.h"

namespace logtide {
namespace {

std::string Quote(std::string_view s, char q) {
  std::string out(1, q);
  for (char c : s) {
    out += c;
    if (c == q) out += c;
  }
  return out + q;
}

// Whether code point `cp` (past ASCII) is a control, a line or paragraph separator, or a
// bidirectional formatting character.
bool HidesText(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 || cp == 0x061C ||
         cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

std::string VisibleText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += text[i++];
      continue;
    }
    char32_t cp = 0;
    const size_t n = c < 0x80 ? 0 : DecodeUtf8(text.substr(i), &cp);
    if (n > 0 && !HidesText(cp)) {
      out.append(text.substr(i, n));
    } else if (n > 0) {
      out += fmt::format("\\u{:04x}", static_cast<uint32_t>(cp));
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
    i += n > 0 ? n : 1;
  }
  return out;
}

std::string DoubleQuotedIdent(std::string_view s) { return Quote(s, '"'); }
std::string BacktickIdent(std::string_view s) { return Quote(s, '`'); }
std::string SqlString(std::string_view s) { return Quote(s, '\''); }

std::string SqlComment(std::string_view text, std::string_view indent) {
  constexpr size_t kWidth = 100;
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string visible = VisibleText(text.substr(pos, nl - pos));
    const std::string_view line = visible;
    // A line that starts with spaces keeps them, and its folded pieces are indented 2 more.
    size_t i = std::min(line.find_first_not_of(' '), line.size());
    const std::string first = std::string(indent) + "-- " + std::string(i, ' ');
    const std::string more = first + "  ";
    std::string current = first;
    bool empty = true;
    while (i < line.size()) {
      size_t sp = line.find(' ', i);
      if (sp == std::string_view::npos) sp = line.size();
      const std::string_view word = line.substr(i, sp - i);
      if (!empty && current.size() + 1 + word.size() > kWidth) {
        out += current + "\n";
        current = more;
        empty = true;
      }
      if (!word.empty()) {
        if (!empty) current += ' ';
        current += word;
        empty = false;
      }
      i = sp + 1;
    }
    while (!current.empty() && current.back() == ' ') current.pop_back();
    out += current + "\n";
    if (nl == text.size()) return out;
    pos = nl + 1;
  }
}

FieldColumn FindColumn(const std::vector<SourceField>& fields, const FieldPath& path,
                       bool elements) {
  FieldColumn c;
  const std::vector<SourceField>* level = &fields;
  for (size_t i = 0; i < path.size(); ++i) {
    if (c.field != nullptr) {
      const bool descend =
          !c.field->segment.is_index &&
          (c.field->use == FieldUse::kRecord || (elements && c.field->use == FieldUse::kArray));
      if (!descend) {
        c.inside.assign(path.begin() + static_cast<std::ptrdiff_t>(i), path.end());
        return c;
      }
    }
    for (const SourceField& f : *level) {
      if (SameSegment(f.segment, path[i])) c.field = &f;
    }
    c.columns.push_back(path[i]);
    level = &c.field->children;
  }
  return c;
}

}  // namespace logtide
