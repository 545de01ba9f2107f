// The reference the extractor is checked against (extractor_diff_test.cc, tests/fuzz): the
// line read with simdjson's On-Demand API, the way logtide read lines before it walked stage
// 1's tokens itself; and how two extracted values compare and print.
#pragma once

#include <simdjson.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "json/field_path.h"
#include "json/value.h"

namespace logtide {

namespace od = simdjson::ondemand;

// The reference: every field of the object walked with On-Demand, registered paths (a tree of
// names and array indices) read as scalars or raw text, the last duplicate winning.
struct Reference {
  struct Node {
    std::string name;
    int slot = -1;
    std::vector<int> children;
    bool is_index = false;
    int64_t index = 0;
  };
  std::vector<Node> nodes{Node{}};
  od::parser parser;
  simdjson::dom::parser dom_parser;  // numbers' values (Scalar)

  // `path` in canonical text (json/field_path.h).
  void Add(const std::string& path, int slot) {
    FieldPath segs;
    size_t at;
    if (!ParseFieldPath(path, &segs, &at).ok()) std::abort();
    int node = 0;
    for (const PathSegment& seg : segs) {
      int child = -1;
      for (int c : nodes[node].children) {
        if (nodes[c].is_index == seg.is_index &&
            (seg.is_index ? nodes[c].index == seg.index : nodes[c].name == seg.key))
          child = c;
      }
      if (child < 0) {
        child = static_cast<int>(nodes.size());
        nodes.push_back(Node{seg.key, -1, {}, seg.is_index, seg.index});
        nodes[node].children.push_back(child);
      }
      node = child;
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
        if (auto e = val.get_number().get(n)) {
          // An integer beyond 64 bits, which simdjson 3.0.1 refuses: logtide reads it as the
          // nearest double (issue 28), here strtod's, if it is an integer as JSON spells one.
          std::string token(val.raw_json_token());
          while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back())))
            token.pop_back();
          const size_t digits = token[0] == '-' ? 1 : 0;
          if (token.size() <= digits || token[digits] == '0' ||
              token.find_first_not_of("0123456789", digits) != std::string::npos)
            return e;
          const double d = std::strtod(token.c_str(), nullptr);
          if (!std::isfinite(d)) return e;
          *out = ValueRef::Number(d);
          return simdjson::SUCCESS;
        }
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
          if (!nodes[c].is_index && nodes[c].name == key) child = c;
      }
      if (child < 0) continue;
      // A later copy of a parent replaces the earlier one: its paths start again from null.
      NullBelow(child, values);
      if (auto e = Value(field.value(), child, values)) return e;
    }
    return simdjson::SUCCESS;
  }

  // The value of node `child` (a field's or an array element's).
  simdjson::error_code Value(od::value val, int child, std::vector<ValueRef>* values) {
    if (nodes[child].slot >= 0) return Scalar(val, &(*values)[nodes[child].slot]);
    od::json_type type;
    if (auto e = val.type().get(type)) return e;
    if (type == od::json_type::object) {
      od::object sub;
      if (auto e = val.get_object().get(sub)) return e;
      return Walk(sub, child, values);
    }
    bool indices = false;  // (an array no index reads is skipped, as by the extractor)
    for (int c : nodes[child].children) indices |= nodes[c].is_index;
    if (type != od::json_type::array || !indices) return simdjson::SUCCESS;
    od::array arr;
    if (auto e = val.get_array().get(arr)) return e;
    size_t count;
    if (auto e = arr.count_elements().get(count)) return e;
    int64_t i = 0;
    for (auto element : arr) {
      od::value v;
      if (auto e = element.get(v)) return e;
      for (int c : nodes[child].children) {
        const int64_t at = nodes[c].index;
        if (nodes[c].is_index && (at == i || at == i - static_cast<int64_t>(count))) {
          if (auto e = Value(v, c, values)) return e;
          break;
        }
      }
      ++i;
    }
    return simdjson::SUCCESS;
  }

  void NullBelow(int node, std::vector<ValueRef>* values) const {
    for (int c : nodes[node].children) {
      if (nodes[c].slot >= 0) (*values)[nodes[c].slot] = ValueRef::Null();
      NullBelow(c, values);
    }
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

// Whether two DOM values are equal as JSON: objects by their keys (the last of a duplicate),
// arrays element by element, numbers by value.
inline bool SameJson(simdjson::dom::element a, simdjson::dom::element b) {
  using T = simdjson::dom::element_type;
  const auto number = [](simdjson::dom::element e, double* d) {
    if (e.type() == T::INT64) *d = static_cast<double>(int64_t(e));
    else if (e.type() == T::UINT64) *d = static_cast<double>(uint64_t(e));
    else if (e.type() == T::DOUBLE) *d = double(e);
    else return false;
    return true;
  };
  double x, y;
  if (number(a, &x) || number(b, &y)) return number(a, &x) && number(b, &y) && x == y;
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case T::OBJECT: {
      std::map<std::string_view, simdjson::dom::element> ma, mb;
      for (auto f : simdjson::dom::object(a)) ma[f.key] = f.value;
      for (auto f : simdjson::dom::object(b)) mb[f.key] = f.value;
      if (ma.size() != mb.size()) return false;
      for (auto& [k, v] : ma) {
        auto it = mb.find(k);
        if (it == mb.end() || !SameJson(v, it->second)) return false;
      }
      return true;
    }
    case T::ARRAY: {
      simdjson::dom::array xa(a), xb(b);
      if (xa.size() != xb.size()) return false;
      for (size_t i = 0; i < xa.size(); ++i)
        if (!SameJson(xa.at(i).value(), xb.at(i).value())) return false;
      return true;
    }
    case T::STRING:
      return std::string_view(a) == std::string_view(b);
    case T::BOOL:
      return bool(a) == bool(b);
    default:
      return true;  // null
  }
}

// Whether the extractor's canonical text has no spaces and keys in strictly ascending order.
inline bool Canonical(simdjson::dom::element e) {
  using T = simdjson::dom::element_type;
  if (e.type() == T::OBJECT) {
    std::string_view last;
    bool first = true;
    for (auto f : simdjson::dom::object(e)) {
      if (!first && !(last < f.key)) return false;
      first = false;
      last = f.key;
      if (!Canonical(f.value)) return false;
    }
  } else if (e.type() == T::ARRAY) {
    for (auto x : simdjson::dom::array(e))
      if (!Canonical(x)) return false;
  }
  return true;
}

// The text `s` with each integer beyond 64 bits outside strings respelled as strtod's double
// with 17 digits and an exponent: simdjson 3.0.1's DOM parser refuses such integers, which
// logtide reads as the nearest double (issue 28). Integers with a leading zero stay as they are.
inline std::string DoublesForBigIntegers(std::string_view s) {
  std::string out;
  bool in_string = false;
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (in_string || c == '"') {
      out += c;
      if (in_string && c == '\\' && i + 1 < s.size()) out += s[++i];
      else if (c == '"') in_string = !in_string;
      ++i;
      continue;
    }
    if (c != '-' && !std::isdigit(static_cast<unsigned char>(c))) {
      out += c;
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) ||
                            std::strchr(".eE+-", s[j]) != nullptr))
      ++j;
    const std::string token(s.substr(i, j - i));
    const size_t lead = token[0] == '-' ? 1 : 0;
    char* end = nullptr;
    errno = 0;
    std::strtoll(token.c_str(), &end, 10);
    if (*end == '\0' && errno == ERANGE && token.size() > lead + 1 && token[lead] != '0') {
      char buf[40];
      std::snprintf(buf, sizeof(buf), "%.16e", std::strtod(token.c_str(), nullptr));
      out += buf;
    } else {
      out += token;
    }
    i = j;
  }
  return out;
}

inline bool Same(const ValueRef& a, const ValueRef& b) {
  if (a.type != b.type || a.is_int != b.is_int) return false;
  if (a.type == ValueType::kNumber)
    return a.is_int ? a.i == b.i : std::memcmp(&a.d, &b.d, sizeof(double)) == 0;
  if (a.type == ValueType::kString) return a.s == b.s;
  if (a.type == ValueType::kRaw) {
    // The extractor's text (a) is canonical and equal as JSON to the source text (b).
    static simdjson::dom::parser pa, pb;
    simdjson::dom::element ea, eb;
    const std::string source = DoublesForBigIntegers(b.s);
    if (pa.parse(a.s.data(), a.s.size()).get(ea) || pb.parse(source).get(eb)) return false;
    // No spaces outside strings: minifying changes nothing.
    std::string min(a.s.size() + 1, '\0');
    size_t min_size = 0;
    if (simdjson::minify(a.s.data(), a.s.size(), min.data(), min_size) != simdjson::SUCCESS ||
        std::string_view(min.data(), min_size) != a.s)
      return false;
    return Canonical(ea) && SameJson(ea, eb);
  }
  return true;
}

inline std::string Show(const std::vector<ValueRef>& v) {
  std::string out;
  for (const ValueRef& x : v) {
    out += "[" + std::to_string(static_cast<int>(x.type)) + (x.is_int ? " i" : " d") + " " +
           std::to_string(x.i) + " " + std::to_string(x.d) + " " + std::string(x.s) + "]";
  }
  return out;
}


}  // namespace logtide
