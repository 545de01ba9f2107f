#include "json/field_path.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <charconv>

#include "json/json_text.h"

namespace logtide {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

class PathParser {
 public:
  PathParser(std::string_view text, FieldPath* out, size_t* error_at)
      : s_(text), out_(out), error_at_(error_at) {}
  bool empty_segment() const { return empty_segment_; }

  Status Run() {
    out_->clear();
    SkipSpaces();
    if (pos_ < s_.size() && s_[pos_] == '.') ++pos_;  // jq: .req.method
    while (true) {
      SkipSpaces();
      if (Status st = Segment(); !st.ok()) return st;
      SkipSpaces();
      if (pos_ == s_.size()) return Status::Ok();
      if (s_[pos_] == '.') {
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
  void SkipSpaces() {
    while (pos_ < s_.size() && IsSpace(s_[pos_])) ++pos_;
  }

  // One segment: "key", ["key"], [N] or a plain key (up to the next '.' or '[').
  Status Segment() {
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
      while (pos_ < s_.size() && s_[pos_] != '.' && s_[pos_] != '[') ++pos_;
      std::string_view key = s_.substr(start, pos_ - start);
      while (!key.empty() && IsSpace(key.back())) key.remove_suffix(1);
      if (key.empty()) {
        pos_ = start;
        empty_segment_ = true;
        return Error("empty field name");
      }
      if (key.find_first_of("\"]") != std::string_view::npos) {
        pos_ = start;
        return Error(
            "a key holding '\"' or ']' must be quoted, as in .[\"a]b\"] (and cannot hold '\"')");
      }
      if (!simdjson::validate_utf8(key.data(), key.size())) {
        pos_ = start;
        return Error("the key is not valid UTF-8, as every key of a JSON line is");
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

  // A JSON string at pos_ (its opening quote), unescaped by simdjson (which checks UTF-8 too).
  Status Quoted(std::string* key) {
    const size_t start = pos_;
    size_t end = start + 1;
    while (end < s_.size() && s_[end] != '"') end += s_[end] == '\\' ? 2 : 1;
    if (end >= s_.size()) return Error("the quoted key has no closing '\"'");
    simdjson::dom::parser parser;
    std::string_view value;
    const simdjson::padded_string json(s_.substr(start, end + 1 - start));
    if (parser.parse(json).get_string().get(value) != simdjson::SUCCESS) {
      return Error("the quoted key is not a valid JSON string");
    }
    *key = std::string(value);
    pos_ = end + 1;
    return Status::Ok();
  }

  std::string_view s_;
  size_t pos_ = 0;
  FieldPath* out_;
  size_t* error_at_;
  bool empty_segment_ = false;
};

}  // namespace

Status ParseFieldPath(std::string_view text, FieldPath* out, size_t* error_at,
                      bool* empty_segment) {
  PathParser parser(text, out, error_at);
  Status s = parser.Run();
  if (empty_segment != nullptr) *empty_segment = parser.empty_segment();
  return s;
}

bool IsPlainKey(std::string_view key) {
  // Besides the path's own syntax: ',' and '=' separate keys and names in flags and in the
  // query's text (engine/query_text.cc), and control characters would break its lines.
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
