#include "json/field_path.h"

#include <fmt/format.h>

#include <charconv>

#include "json/json_text.h"
#include "util/quote.h"

namespace logtide {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

class PathParser {
 public:
  PathParser(std::string_view text, bool in_expression, FieldPath* out, size_t* error_at)
      : s_(text), in_expression_(in_expression), out_(out), error_at_(error_at) {}
  size_t pos() const { return pos_; }

  Status Run() {
    out_->clear();
    if (!in_expression_) {
      // Every key of a JSON line is UTF-8 (an expression's text is checked whole before).
      if (const size_t bad = FindInvalidUtf8(s_); bad != std::string_view::npos) {
        pos_ = bad;
        return Error("the key is not valid UTF-8, as every key of a JSON line is");
      }
      SkipSpaces();
    }
    bool after_dot = false;
    if (pos_ < s_.size() && s_[pos_] == '.') {  // jq: .req.method
      ++pos_;
      after_dot = true;
    }
    while (true) {
      SkipSpaces();
      if (Status st = Segment(after_dot); !st.ok()) return st;
      if (in_expression_) {
        // Another segment: .name, ."name", .["name"] or [N], with no space before it.
        if (pos_ < s_.size() && s_[pos_] == '[') {
          after_dot = false;
          continue;
        }
        if (pos_ == s_.size() || s_[pos_] != '.') return Status::Ok();
        ++pos_;
        after_dot = true;
        continue;
      }
      SkipSpaces();
      if (pos_ == s_.size()) return Status::Ok();
      after_dot = s_[pos_] == '.';
      if (after_dot) {
        ++pos_;
      } else if (s_[pos_] != '[') {
        return Error("expected '.' or '[' after a quoted key or an index");
      }
    }
  }

 private:
  Status Error(std::string_view what) {
    *error_at_ = pos_;
    return Status::InvalidArgument(std::string(what));
  }
  // Spaces and tabs; in an expression, its white space (newlines too).
  void SkipSpaces() {
    while (pos_ < s_.size() && (IsSpace(s_[pos_]) || (in_expression_ && s_[pos_] == '\n')))
      ++pos_;
  }

  // One segment: "key", ["key"], [N] or a plain key (alone: up to the next '.' or '['; in an
  // expression: an identifier).
  Status Segment(bool after_dot) {
    const size_t start_of_segment = pos_;
    PathSegment seg;
    if (pos_ < s_.size() && s_[pos_] == '"') {
      if (Status st = Quoted(&seg.key); !st.ok()) return st;
    } else if (pos_ < s_.size() && s_[pos_] == '[') {
      ++pos_;
      SkipSpaces();
      if (pos_ < s_.size() && s_[pos_] == '"') {
        if (Status st = Quoted(&seg.key); !st.ok()) return st;
      } else {
        const size_t start = pos_;
        if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
        while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
        const auto [end, ec] = std::from_chars(s_.data() + start, s_.data() + pos_, seg.index);
        if (ec != std::errc() || end == s_.data() + start) {
          pos_ = start;
          return Error(ec == std::errc::result_out_of_range
                           ? "the array index is out of range"
                           : "expected an array index (0, 1, -1 for the last) or a quoted key "
                             "inside [ ]");
        }
        seg.is_index = true;
      }
      SkipSpaces();
      if (pos_ == s_.size() || s_[pos_] != ']') return Error("expected ']'");
      ++pos_;
    } else {
      const size_t start = pos_;
      std::string_view key;
      if (in_expression_) {
        if (pos_ < s_.size() && IsIdentifierStart(s_[pos_])) {
          while (pos_ < s_.size() && IsIdentifierChar(s_[pos_])) ++pos_;
        }
        key = s_.substr(start, pos_ - start);
      } else {
        while (pos_ < s_.size() && s_[pos_] != '.' && s_[pos_] != '[') ++pos_;
        key = s_.substr(start, pos_ - start);
        while (!key.empty() && IsSpace(key.back())) key.remove_suffix(1);
      }
      if (key.empty()) {
        pos_ = start;
        return Error(after_dot ? "expected a field name after '.'" : "expected a field name");
      }
      if (key.find_first_of("\"]") != std::string_view::npos) {
        pos_ = start;
        return Error(
            "a key holding '\"' or ']' must be quoted, as in .[\"a]b\"] (and cannot hold '\"')");
      }
      seg.key = std::string(key);
    }
    if (!seg.is_index && seg.key.empty()) return Error("a field name cannot be empty");
    if (out_->empty() && seg.is_index) {
      pos_ = start_of_segment;
      return Error("a path starts with a key: every line is an object, not an array");
    }
    out_->push_back(std::move(seg));
    return Status::Ok();
  }

  // A JSON string at pos_ (its opening quote).
  Status Quoted(std::string* key) {
    size_t end = 0, at = 0;
    if (Status st = DecodeJsonString(s_.substr(pos_), key, &end, &at); !st.ok()) {
      pos_ += at;
      return Error(st.message());
    }
    pos_ += end;
    return Status::Ok();
  }

  std::string_view s_;
  size_t pos_ = 0;
  const bool in_expression_;
  FieldPath* out_;
  size_t* error_at_;
};

}  // namespace

Status ParseFieldPath(std::string_view text, FieldPath* out, size_t* error_at) {
  return PathParser(text, false, out, error_at).Run();
}

Status ParseExprFieldPath(std::string_view text, FieldPath* out, size_t* end, size_t* error_at) {
  PathParser parser(text, true, out, error_at);
  Status s = parser.Run();
  *end = parser.pos();
  return s;
}

Status NormalizeFieldPath(std::string_view flag, std::string_view text, std::string* out) {
  const auto trim = [](std::string_view s) {
    while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
    while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
    return s;
  };
  const std::string_view path = trim(text);
  if (!path.empty() && path.front() == '$') {
    return Status::InvalidArgument(
        fmt::format("{} {}: a field is named by its path alone, without '$': write {} {}", flag,
                    QuoteForMessage(text, /*backslash_quotes=*/true), flag, trim(path.substr(1))));
  }
  if (path.empty() || path == ".") return Status::InvalidArgument(fmt::format("{}: empty field name", flag));
  FieldPath parsed;
  size_t at = 0;
  if (const Status s = ParseFieldPath(path, &parsed, &at); !s.ok()) {
    return Status::InvalidArgument(
        fmt::format("{} {}: {} (at byte {})", flag, QuoteForMessage(text, /*backslash_quotes=*/true), s.message(),
                    static_cast<size_t>(path.data() - text.data()) + at + 1));
  }
  *out = FieldPathText(parsed);
  return Status::Ok();
}

bool IsPlainKey(std::string_view key) {
  // Besides the path's own syntax: ',' and '=' separate keys and names in flags and in the
  // query's text (query/query.cc), and control characters would break its lines.
  if (key.empty() || IsSpace(key.front()) || IsSpace(key.back()) || key.front() == '$') return false;
  for (const char c : key) {
    if (static_cast<unsigned char>(c) < 0x20 || std::string_view(".[]\"\\,=()").find(c) !=
                                                    std::string_view::npos)
      return false;
  }
  return true;
}

std::string FieldPathText(const FieldPath& path) {
  std::string out;
  for (const PathSegment& seg : path) {
    if (seg.is_index) {
      fmt::format_to(std::back_inserter(out), "[{}]", seg.index);
    } else if (IsPlainKey(seg.key)) {
      if (!out.empty()) out.push_back('.');
      out.append(seg.key);
    } else {
      out.push_back('[');
      AppendJsonString(seg.key, &out);
      out.push_back(']');
    }
  }
  return out;
}

std::string FieldPathName(const FieldPath& path) {
  std::string out;
  for (const PathSegment& seg : path) {
    if (seg.is_index) {
      fmt::format_to(std::back_inserter(out), "[{}]", seg.index);
    } else {
      if (!out.empty()) out.push_back('.');
      out.append(seg.key);
    }
  }
  return out;
}

std::string FieldPathName(std::string_view text) {
  FieldPath path;
  size_t at;
  if (!ParseFieldPath(text, &path, &at).ok()) return std::string(text);
  return FieldPathName(path);
}

}  // namespace logtide
