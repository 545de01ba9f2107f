// The extractor's token walk against simdjson's On-Demand API (the way logtide read lines before
// it walked stage 1's tokens itself), on random lines, valid and broken; and the same lines
// indexed in runs against one by one.
#include <simdjson.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "json/extractor.h"
#include "json/structural_index.h"

namespace logtide {
namespace {

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

  // On-Demand's raw_json() runs to the next token, so it includes the spaces after the value;
  // the extractor gives the value's text alone (a key must not depend on spacing).
  static std::string_view Trimmed(std::string_view raw) {
    while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t')) raw.remove_suffix(1);
    return raw;
  }

  static simdjson::error_code Scalar(od::value val, ValueRef* out) {
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
        // (1234.567890123456789); get_double() reads it right.
        od::number_type type;
        if (auto e = val.get_number_type().get(type)) return e;
        if (type == od::number_type::floating_point_number) {
          double d;
          if (auto e = val.get_double().get(d)) return e;
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
      // A later copy of a parent replaces the earlier one: its paths start again from null.
      NullBelow(child, values);
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

const char* const kPaths[] = {"ts", "svc", "n", "x", "req.m", "req.id", "a.b.c", "arr"};
const char* const kKeys[] = {"ts",       "svc",       "n",       "x",   "req", "m",
                             "id",       "a",         "b",       "c",   "arr", "other",
                             "t\\u0073", "sv\\u0063", "\\u006e", "tsx", "s",   "n\\n"};

struct Gen {
  std::mt19937_64 rng;
  explicit Gen(uint64_t seed) : rng(seed) {}
  int Below(int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); }
  std::string Space() {
    static const char* const kSpaces[] = {"", "", "", " ", "\t", "  ", " \t "};
    return kSpaces[Below(7)];
  }
  std::string Number() {
    static const char* const kNumbers[] = {"0",
                                           "-0",
                                           "7",
                                           "-7",
                                           "42.5",
                                           "0.1",
                                           "7.33",
                                           "22.61",
                                           "1e2",
                                           "1E+2",
                                           "-1.5e-3",
                                           "2.0",
                                           "123456789012345678",
                                           "1234567890123456789",
                                           "9223372036854775807",
                                           "9223372036854775808",
                                           "-9223372036854775808",
                                           "-9223372036854775809",
                                           "18446744073709551615",
                                           "18446744073709551616",
                                           "1e400",
                                           "-1e400",
                                           "1e-400",
                                           "5e-324",
                                           "0.30000000000000004",
                                           "123456789.123456789",
                                           "1.7976931348623157e308",
                                           "4.9e-324",
                                           "0.000000000000000000000000001",
                                           "9007199254740993",
                                           "9007199254740993.0",
                                           "1700000000.25",
                                           "01",
                                           "1.",
                                           ".5",
                                           "-",
                                           "+1",
                                           "1e",
                                           "1e+",
                                           "--1",
                                           "1.2.3",
                                           "0x10",
                                           "1a"};
    if (Below(3) == 0) {  // a random decimal
      std::string s = Below(4) == 0 ? "-" : "";
      s += std::to_string(rng() % 100000);
      if (Below(2) == 0) s += "." + std::to_string(rng() % 1000000);
      if (Below(5) == 0) s += "e" + std::to_string(Below(40) - 20);
      return s;
    }
    return kNumbers[Below(sizeof(kNumbers) / sizeof(kNumbers[0]))];
  }
  std::string String() {
    static const char* const kParts[] = {"a",
                                         "GET",
                                         "2024-05-01T10:00:00Z",
                                         "\\\"",
                                         "\\\\",
                                         "\\n",
                                         "\\u00e9",
                                         "\\ud83d\\ude00",
                                         "\xc3\xa9",
                                         " ",
                                         "\\/",
                                         "\\t",
                                         "\\u0000",
                                         "0123456789abcdef",
                                         "\\x",
                                         "\\ud83d",
                                         "\\u12"};
    std::string s = "\"";
    for (int i = Below(4); i > 0; --i) s += kParts[Below(Below(3) == 0 ? 17 : 14)];
    return s + "\"";
  }
  std::string Value(int depth) {
    switch (Below(depth > 2 ? 6 : 8)) {
      case 0:
      case 1:
        return Number();
      case 2:
      case 3:
        return String();
      case 4: {
        static const char* const kAtoms[] = {"true", "false", "null", "nul", "tru", "nulls"};
        return kAtoms[Below(Below(4) == 0 ? 6 : 3)];
      }
      case 5:
        return Below(2) == 0 ? "{}" : "[]";
      case 6:
        return Object(depth + 1);
      default: {
        std::string s = "[" + Space();
        for (int i = Below(4); i > 0; --i) s += Value(depth + 1) + Space() + (i > 1 ? "," : "");
        return s + "]";
      }
    }
  }
  std::string Object(int depth) {
    std::string s = "{" + Space();
    const int fields = Below(7);
    for (int i = 0; i < fields; ++i) {
      if (i > 0) s += "," + Space();
      s += "\"" + std::string(kKeys[Below(sizeof(kKeys) / sizeof(kKeys[0]))]) + "\"" + Space() +
           ":" + Space() + Value(depth) + Space();
    }
    return s + "}";
  }
  // A line: an object, broken by one edit in one line of `broken_one_in`.
  std::string Line(int broken_one_in = 3) {
    std::string s = Space() + Object(0) + Space();
    if (Below(broken_one_in) == 0) {
      static const char kBytes[] = "{}[]:,\"\\ ax0-.e\t";
      const size_t at = static_cast<size_t>(Below(static_cast<int>(s.size()) + 1));
      switch (Below(3)) {
        case 0:
          if (at < s.size()) s.erase(at, 1);
          break;
        case 1:
          s.insert(at, 1, kBytes[Below(sizeof(kBytes) - 1)]);
          break;
        default:
          if (at < s.size()) s[at] = kBytes[Below(sizeof(kBytes) - 1)];
      }
    }
    return s;
  }
};

// Whether two DOM values are equal as JSON: objects by their keys (the last of a duplicate),
// arrays element by element, numbers by value.
bool SameJson(simdjson::dom::element a, simdjson::dom::element b) {
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
bool Canonical(simdjson::dom::element e) {
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

bool Same(const ValueRef& a, const ValueRef& b) {
  if (a.type != b.type || a.is_int != b.is_int) return false;
  if (a.type == ValueType::kNumber)
    return a.is_int ? a.i == b.i : std::memcmp(&a.d, &b.d, sizeof(double)) == 0;
  if (a.type == ValueType::kString) return a.s == b.s;
  if (a.type == ValueType::kRaw) {
    // The extractor's text (a) is canonical and equal as JSON to the source text (b).
    static simdjson::dom::parser pa, pb;
    simdjson::dom::element ea, eb;
    if (pa.parse(a.s.data(), a.s.size()).get(ea) || pb.parse(b.s.data(), b.s.size()).get(eb))
      return false;
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

std::string Show(const std::vector<ValueRef>& v) {
  std::string out;
  for (const ValueRef& x : v) {
    out += "[" + std::to_string(static_cast<int>(x.type)) + (x.is_int ? " i" : " d") + " " +
           std::to_string(x.i) + " " + std::to_string(x.d) + " " + std::string(x.s) + "]";
  }
  return out;
}

TEST_CASE("the token walk agrees with simdjson On-Demand on random lines") {
  FieldExtractor ex;
  Reference ref;
  const int n = static_cast<int>(sizeof(kPaths) / sizeof(kPaths[0]));
  for (int i = 0; i < n; ++i) {
    int slot;
    REQUIRE(ex.AddPath(kPaths[i], &slot).ok());
    ref.Add(kPaths[i], slot);
  }
  REQUIRE(ex.Finish().ok());
  Gen gen(20261129);
  JsonChecker checker;
  int accepted = 0, refused = 0, stricter = 0;
  for (int iter = 0; iter < 200000; ++iter) {
    const std::string line = gen.Line();
    std::string padded = line + std::string(FieldExtractor::kPadding, ' ');
    std::vector<ValueRef> want(n, ValueRef::Null()), got;
    const bool ref_ok = ref.Extract(padded, line.size(), &want);
    const bool ok = ex.Extract(padded.data(), line.size(), padded.size(), &got).ok();
    INFO(line);
    if (ok) {
      REQUIRE(ref_ok);  // never more lenient than On-Demand
      INFO(Show(got) + " vs " + Show(want));
      for (int i = 0; i < n; ++i) REQUIRE(Same(got[i], want[i]));
      ++accepted;
    } else if (ref_ok) {
      // Stricter only where On-Demand lets invalid JSON through (an unread value's brackets).
      REQUIRE_FALSE(checker.IsValid(line));
      ++stricter;
    } else {
      ++refused;
    }
  }
  // The generator must exercise both sides (these are its mix, not the code's answers).
  CHECK(accepted > 50000);
  CHECK(refused > 20000);
  WARN("accepted " << accepted << ", refused " << refused << ", stricter than On-Demand "
                   << stricter);
}

TEST_CASE("lines give the same results indexed in a run as one by one") {
  FieldExtractor ex;
  const int n = static_cast<int>(sizeof(kPaths) / sizeof(kPaths[0]));
  for (int i = 0; i < n; ++i) {
    int slot;
    REQUIRE(ex.AddPath(kPaths[i], &slot).ok());
  }
  REQUIRE(ex.Finish().ok());
  Gen gen(7);
  StructuralIndex index;
  int indexed = 0, not_indexed = 0;  // runs whose first piece stage 1 took, or refused
  for (int block = 0; block < 400; ++block) {
    // A run of lines ended by "\n" or "\r\n"; a quarter of the runs hold a line that stops
    // stage 1 for the whole run (a raw control character, invalid UTF-8 or a lone quote).
    std::vector<std::string> lines;
    std::string run;
    const int count = 1 + gen.Below(gen.Below(4) == 0 ? 1500 : 300);  // some runs of pieces
    const int spoilt = gen.Below(4) == 0 ? gen.Below(count) : -1;
    for (int i = 0; i < count; ++i) {
      std::string line = gen.Line(60);
      if (i == spoilt) {
        static const char* const kSpoilers[] = {"\"\x01\"", "\"\xff\"", "\""};
        line.insert(line.size() / 2, kSpoilers[gen.Below(3)]);
      }
      lines.push_back(line);
      run += line + (gen.Below(4) == 0 ? "\r\n" : "\n");
    }
    run.append(FieldExtractor::kPadding, ' ');
    index.SetRun(run.data(), run.size() - FieldExtractor::kPadding);
    size_t pos = 0;
    bool first = true;
    for (const std::string& line : lines) {
      std::string alone = line + std::string(FieldExtractor::kPadding, ' ');
      std::vector<ValueRef> a, b;
      const Status in_run = ex.Extract(run.data() + pos, line.size(), run.size() - pos, &a, &index);
      const std::string a_shown = Show(a);
      if (first) {
        (index.Covers(run.data(), line.size()) ? indexed : not_indexed)++;
        first = false;
      }
      const Status by_itself = ex.Extract(alone.data(), line.size(), alone.size(), &b);
      INFO(line);
      REQUIRE(in_run.ok() == by_itself.ok());
      REQUIRE(in_run.message() == by_itself.message());
      if (in_run.ok()) REQUIRE(a_shown == Show(b));  // (values of a bad line are unspecified)
      pos += line.size() + (run[pos + line.size()] == '\r' ? 2 : 1);
    }
  }
  // Both paths ran (the generator's mix).
  CHECK(indexed > 100);
  WARN("runs indexed " << indexed << ", refused by stage 1 " << not_indexed);
  CHECK(not_indexed > 20);
}

}  // namespace
}  // namespace logtide
