// The reference the extractor is checked against (extractor_diff_test.cc, tests/fuzz): the
// line read with simdjson's On-Demand API, the way logtide read lines before it walked stage
// 1's tokens itself; and how two extracted values compare and print.
#pragma once

#include <simdjson.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "json/value.h"

namespace logtide {

namespace od = simdjson::ondemand;

// The reference: every field of the object walked with On-Demand, registered paths (a tree of
// names) read as scalars or raw text, the last duplicate winning.
struct Reference {
  struct Node {
    std::string name;
    int slot = -1;
    std::vector<int> children;
  };
  std::vector<Node> nodes{Node{}};
  od::parser parser;
  simdjson::dom::parser dom_parser;  // numbers' values (Scalar)

  void Add(const std::string& dotted, int slot) {
    int node = 0;
    size_t pos = 0;
    while (true) {
      const size_t dot = dotted.find('.', pos);
      const std::string seg = dotted.substr(pos, dot == std::string::npos ? dot : dot - pos);
      int child = -1;
      for (int c : nodes[node].children)
        if (nodes[c].name == seg) child = c;
      if (child < 0) {
        child = static_cast<int>(nodes.size());
        nodes.push_back(Node{seg, -1, {}});
        nodes[node].children.push_back(child);
      }
      node = child;
      if (dot == std::string::npos) break;
      pos = dot + 1;
    }
    nodes[node].slot = slot;
  }

  // On-Demand's raw_json() runs to the next token, so it includes the white space after the
  // value (JSON's: space, tab, CR, LF); the extractor gives the value's text alone (a key must
  // not depend on spacing).
  static std::string_view Trimmed(std::string_view raw) {
    while (!raw.empty() &&
           (raw.back() == ' ' || raw.back() == '\t' || raw.back() == '\r' || raw.back() == '\n'))
      raw.remove_suffix(1);
    return raw;
  }

  simdjson::error_code Scalar(od::value val, ValueRef* out) {
    od::json_type type;
    if (auto e = val.type().get(type)) return e;
    switch (type) {
      case od::json_type::string: {
        std::string_view s;
        if (auto e = val.get_string().get(s)) return e;
        *out = ValueRef::String(s);
        return simdjson::SUCCESS;
      }
      case od::json_type::number: {
        // simdjson 3.0.1's get_number() gives 0 for a decimal of more than 19 digits
        // (1234.567890123456789), and get_double() misreads some of them
        // (0.797693136931348623158 as 0.0044831417618379039): get_double() decides whether the
        // number is taken, and the DOM parser, which reads them right, gives its value.
        od::number_type type;
        if (auto e = val.get_number_type().get(type)) return e;
        if (type == od::number_type::floating_point_number) {
          const std::string_view token = val.raw_json_token();
          double d;
          if (auto e = val.get_double().get(d)) return e;
          if (auto e = dom_parser.parse(token.data(), token.size()).get_double().get(d)) return e;
          *out = ValueRef::Number(d);
          return simdjson::SUCCESS;
        }
        od::number n;
        if (auto e = val.get_number().get(n)) return e;
        if (n.get_number_type() == od::number_type::signed_integer)
          *out = ValueRef::Int(n.get_int64());
        else
          *out = ValueRef::Number(static_cast<double>(n.get_uint64()));
        return simdjson::SUCCESS;
      }
      case od::json_type::boolean: {
        bool b;
        if (auto e = val.get_bool().get(b)) return e;
        *out = ValueRef::Bool(b);
        return simdjson::SUCCESS;
      }
      case od::json_type::null: {
        bool is_null;
        if (auto e = val.is_null().get(is_null)) return e;
        if (!is_null) return simdjson::INCORRECT_TYPE;
        *out = ValueRef::Null();
        return simdjson::SUCCESS;
      }
      case od::json_type::object: {
        od::object obj;
        std::string_view raw;
        if (auto e = val.get_object().get(obj)) return e;
        if (auto e = obj.raw_json().get(raw)) return e;
        *out = ValueRef::Raw(Trimmed(raw));
        return simdjson::SUCCESS;
      }
      default: {
        od::array arr;
        std::string_view raw;
        if (auto e = val.get_array().get(arr)) return e;
        if (auto e = arr.raw_json().get(raw)) return e;
        *out = ValueRef::Raw(Trimmed(raw));
        return simdjson::SUCCESS;
      }
    }
  }

  simdjson::error_code Walk(od::object obj, int node, std::vector<ValueRef>* values) {
    for (auto field_result : obj) {
      od::field field;
      if (auto e = std::move(field_result).get(field)) return e;
      // A key with a bad escape matches nothing (the extractor compares the bytes of keys and
      // decodes escapes only in keys that may match: the man page, BAD INPUT).
      std::string_view key;
      int child = -1;
      if (!field.unescaped_key().get(key)) {
        for (int c : nodes[node].children)
          if (nodes[c].name == key) child = c;
      }
      if (child < 0) continue;
      od::value val = field.value();
      if (nodes[child].slot >= 0) {
        if (auto e = Scalar(val, &(*values)[nodes[child].slot])) return e;
        continue;
      }
      od::json_type type;
      if (auto e = val.type().get(type)) return e;
      if (type != od::json_type::object) continue;
      od::object sub;
      if (auto e = val.get_object().get(sub)) return e;
      if (auto e = Walk(sub, child, values)) return e;
    }
    return simdjson::SUCCESS;
  }

  // REQUIRES: line is followed by simdjson's padding.
  bool Extract(const std::string& padded, size_t size, std::vector<ValueRef>* values) {
    od::document doc;
    od::object obj;
    auto error = parser.iterate(padded.data(), size, padded.size()).get(doc);
    if (!error) error = doc.get_object().get(obj);
    if (!error) error = Walk(obj, 0, values);
    if (!error && doc.current_location().error() != simdjson::OUT_OF_BOUNDS)
      error = simdjson::TRAILING_CONTENT;
    return !error;
  }
};

// Returns true when a and b are the same value: the same type and number representation, the
// same bits of a double, the same bytes of a string or raw text.
inline bool Same(const ValueRef& a, const ValueRef& b) {
  if (a.type != b.type || a.is_int != b.is_int) return false;
  if (a.type == ValueType::kNumber)
    return a.is_int ? a.i == b.i : std::memcmp(&a.d, &b.d, sizeof(double)) == 0;
  if (a.type == ValueType::kString || a.type == ValueType::kRaw) return a.s == b.s;
  return true;
}

// Returns the values as text, for failure messages.
inline std::string Show(const std::vector<ValueRef>& v) {
  std::string out;
  for (const ValueRef& x : v) {
    out += "[" + std::to_string(static_cast<int>(x.type)) + (x.is_int ? " i" : " d") + " " +
           std::to_string(x.i) + " " + std::to_string(x.d) + " " + std::string(x.s) + "]";
  }
  return out;
}

}  // namespace logtide
