#include "output/table_writer.h"

#include <algorithm>
#include <cmath>

#include "json/json_text.h"

namespace logtide {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// The characters beyond ASCII that a cell never shows as they are: C1 controls, the line and
// paragraph separators, and the bidirectional overrides and isolates (which reorder what a
// terminal shows after them).
bool EscapedBeyondAscii(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 ||
         (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

void AppendUnicodeEscape(char32_t cp, std::string* out) {
  out->append("\\u");
  for (int shift = 12; shift >= 0; shift -= 4) out->push_back(kHex[(cp >> shift) & 0xf]);
}

// Whether `s` is a number as JSON writes one: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
bool IsJsonNumber(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    const size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - from;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && s[i] == '0') {
    ++i;
  } else if (digits() == 0) {
    return false;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

bool NeedsQuotes(std::string_view s) {
  if (s.empty() || s == "null" || s == "true" || s == "false" || s[0] == '"' || s.front() == ' ' ||
      s.back() == ' ' || s.find("  ") != std::string_view::npos || IsJsonNumber(s))
    return true;
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f) return true;
      ++i;
      continue;
    }
    char32_t cp;
    const size_t n = DecodeUtf8(s.substr(i), &cp);
    if (n == 0 || EscapedBeyondAscii(cp)) return true;
    i += n;
  }
  return false;
}

int CodePointWidth(char32_t cp) {
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x1ab0 && cp <= 0x1aff) ||
      (cp >= 0x1dc0 && cp <= 0x1dff) || (cp >= 0x20d0 && cp <= 0x20ff) ||
      (cp >= 0xfe20 && cp <= 0xfe2f) || (cp >= 0x200b && cp <= 0x200f) ||
      (cp >= 0x2060 && cp <= 0x2064) || cp == 0xfeff || (cp >= 0xfe00 && cp <= 0xfe0f))
    return 0;
  if ((cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) ||
      (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
      (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
      (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1f64f) ||
      (cp >= 0x1f900 && cp <= 0x1f9ff) || (cp >= 0x20000 && cp <= 0x3fffd))
    return 2;
  return 1;
}

void AppendSpaces(size_t n, std::string* out) { out->append(n, ' '); }

}  // namespace

void AppendTableString(std::string_view s, std::string* out) {
  if (!NeedsQuotes(s)) {
    out->append(s);
    return;
  }
  out->push_back('"');
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      switch (c) {
        case '"':
          out->append("\\\"");
          break;
        case '\\':
          out->append("\\\\");
          break;
        case '\b':
          out->append("\\b");
          break;
        case '\f':
          out->append("\\f");
          break;
        case '\n':
          out->append("\\n");
          break;
        case '\r':
          out->append("\\r");
          break;
        case '\t':
          out->append("\\t");
          break;
        default:
          if (c < 0x20 || c == 0x7f) {
            AppendUnicodeEscape(c, out);
          } else {
            out->push_back(static_cast<char>(c));
          }
      }
      continue;
    }
    char32_t cp;
    const size_t n = DecodeUtf8(s.substr(i), &cp);
    if (n == 0) {
      out->append("\\x");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 0xf]);
      ++i;
      continue;
    }
    if (EscapedBeyondAscii(cp)) {
      AppendUnicodeEscape(cp, out);
    } else {
      out->append(s.substr(i, n));
    }
    i += n;
  }
  out->push_back('"');
}

void AppendTableRaw(std::string_view s, std::string* out) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c < 0x20) {
        out->push_back(' ');
      } else if (c == 0x7f) {
        AppendUnicodeEscape(c, out);
      } else {
        out->push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    char32_t cp;
    const size_t n = DecodeUtf8(s.substr(i), &cp);
    if (n == 0) {
      AppendUnicodeEscape(0xfffd, out);  // not from valid JSON: shown as U+FFFD
      ++i;
      continue;
    }
    if (EscapedBeyondAscii(cp)) {
      AppendUnicodeEscape(cp, out);
    } else {
      out->append(s.substr(i, n));
    }
    i += n;
  }
}

size_t DisplayWidth(std::string_view s) {
  size_t width = 0;
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++width;
      ++i;
      continue;
    }
    char32_t cp;
    const size_t n = DecodeUtf8(s.substr(i), &cp);
    if (n == 0) {
      ++width;
      ++i;
      continue;
    }
    width += CodePointWidth(cp);
    i += n;
  }
  return width;
}

TableWriter::TableWriter(std::vector<std::string> key_names, std::vector<std::string> agg_names,
                         bool with_revision, bool per_firing, OutputFile* out)
    : with_revision_(with_revision), per_firing_(per_firing), out_(out) {
  std::vector<std::string> names = {"window_start", "window_end"};
  names.insert(names.end(), key_names.begin(), key_names.end());
  names.insert(names.end(), agg_names.begin(), agg_names.end());
  if (with_revision_) names.insert(names.end(), {"revision", "phase", "final"});
  for (const std::string& n : names) {
    std::string cell;
    AppendTableString(n, &cell);
    header_.push_back(std::move(cell));
  }
  widths_.resize(header_.size());
  right_.resize(header_.size());
}

void TableWriter::set_window_label(const WindowLabel* label) {
  if (label_ == nullptr) {
    std::string cell;
    AppendTableString("window_label", &cell);
    header_.insert(header_.begin() + 2, std::move(cell));
    widths_.resize(header_.size());
    right_.resize(header_.size());
  }
  label_ = label;
}

void TableWriter::EndCell(Kind kind) {
  const size_t begin = cells_.empty() ? 0 : cells_.back().end;
  cells_.push_back(Cell{text_.size(), DisplayWidth(std::string_view(text_).substr(begin)), kind});
}

void TableWriter::AppendBound(Nanos t) {
  if (local_zone_ != nullptr) {
    local_zone_->AppendLocalRfc3339(t, &text_);
  } else {
    AppendRfc3339(t, &text_);
  }
}

void TableWriter::BeginRecord(Nanos start, Nanos end) {
  AppendBound(start);
  EndCell(Kind::kText);
  AppendBound(end);
  EndCell(Kind::kText);
  if (label_ != nullptr) {
    label_->Append(start, &text_);
    EndCell(Kind::kText);
  }
}

void TableWriter::EndRecord(const RecordRevision& revision) {
  if (with_revision_) {
    Int(revision.number);
    text_.append(RecordPhaseName(revision.phase));
    EndCell(Kind::kText);
    text_.append(revision.final ? "true" : "false");
    EndCell(Kind::kText);
  }
  ++rows_;
  if (rows_ >= kMaxRows || text_.size() >= kMaxBytes) WriteTable();
}

void TableWriter::EndFiring() {
  if (per_firing_) WriteTable();
}

void TableWriter::Finish() { WriteTable(); }

void TableWriter::Null() {
  text_.append("null");
  EndCell(Kind::kNull);
}

void TableWriter::Int(__int128 v) {
  AppendInt128(v, &text_);
  EndCell(Kind::kNumber);
}

void TableWriter::Double(double v) {
  if (!std::isfinite(v)) return Null();
  AppendDouble(v, &text_);
  EndCell(Kind::kNumber);
}

void TableWriter::Value(const ValueRef& v) {
  switch (v.type) {
    case ValueType::kNull:
      return Null();
    case ValueType::kNumber:
      AppendJsonValue(v, &text_);
      return EndCell(Kind::kNumber);
    case ValueType::kString:
      AppendTableString(v.s, &text_);
      return EndCell(Kind::kText);
    case ValueType::kRaw:
      AppendTableRaw(v.s, &text_);
      return EndCell(Kind::kText);
    default:  // true, false
      AppendJsonValue(v, &text_);
      return EndCell(Kind::kText);
  }
}

void TableWriter::WriteTable() {
  if (rows_ == 0) return;
  const size_t cols = header_.size();
  for (size_t c = 0; c < cols; ++c) {
    widths_[c] = DisplayWidth(header_[c]);
    bool numbers = false, others = false;
    for (size_t r = 0; r < rows_; ++r) {
      const Cell& cell = cells_[r * cols + c];
      widths_[c] = std::max<size_t>(widths_[c], cell.width);
      numbers |= cell.kind == Kind::kNumber;
      others |= cell.kind == Kind::kText;
    }
    right_[c] = numbers && !others;
  }
  std::string* b = out_->buffer();
  // One line: each cell padded to its column's width, two spaces between columns, none after
  // the last.
  auto line = [&](auto&& cell_text, auto&& cell_width) {
    size_t pending = 0;  // spaces owed before the next cell's text
    for (size_t c = 0; c < cols; ++c) {
      const size_t pad = widths_[c] - cell_width(c);
      if (c > 0) pending += 2;
      if (right_[c]) pending += pad;
      AppendSpaces(pending, b);
      b->append(cell_text(c));
      pending = right_[c] ? 0 : pad;
    }
    b->push_back('\n');
  };
  line([&](size_t c) -> std::string_view { return header_[c]; },
       [&](size_t c) { return DisplayWidth(header_[c]); });
  for (size_t r = 0; r < rows_; ++r) {
    const Cell* row = &cells_[r * cols];
    line(
        [&](size_t c) {
          const size_t begin = r * cols + c == 0 ? 0 : cells_[r * cols + c - 1].end;
          return std::string_view(text_).substr(begin, row[c].end - begin);
        },
        [&](size_t c) { return row[c].width; });
    out_->MaybeFlush();
    b = out_->buffer();
  }
  b->push_back('\n');
  out_->MaybeFlush();
  text_.clear();
  cells_.clear();
  rows_ = 0;
}

}  // namespace logtide
