#include "json/extractor.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <bitset>
#include <cstring>

namespace logtide {

namespace od = simdjson::ondemand;

const size_t FieldExtractor::kPadding = simdjson::SIMDJSON_PADDING;

// The registered paths as a tree; node 0 is the root object.
struct FieldExtractor::Impl {
  struct Key {
    uint64_t first = 0;  // the name's first 8 bytes, zero-filled
    uint64_t last = 0;   // its last 8 bytes, when it has at least 8
    uint64_t mask = 0;   // for names of at most 8 bytes: the bytes of `first` that count
    size_t len = 0;
    int child = -1;
  };
  struct Node {
    std::string name;
    int slot = -1;  // >= 0 for a leaf
    std::vector<int> children;
    bool keep_text = false;  // keep a number's source text (ValueRef::s)
    std::vector<Key> keys;  // the children, for matching raw keys
    std::bitset<65536> heads;  // the children's first two bytes (the quote after a 1-byte name)
  };
  od::parser parser;
  std::vector<Node> nodes{Node{}};

  int FindChild(int node, std::string_view name) const {
    for (int c : nodes[node].children) {
      if (nodes[c].name == name) return c;
    }
    return -1;
  }

  static uint64_t Load64(const char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  // One bit set (the high bit of the byte) at the first byte of `v` that equals `byte`, and
  // maybe at later ones too; zero when no byte does.
  static uint64_t BytesEqual(uint64_t v, uint64_t byte) {
    constexpr uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
    uint64_t x = v ^ (byte * kOnes);
    return (x - kOnes) & ~x & kHighs;
  }

  // Matches a key by its raw bytes in the document (p points just after the opening quote;
  // the padded buffer is readable well past the key). Returns -2 when the key holds an escape,
  // so the caller must compare its unescaped form instead.
  __attribute__((always_inline)) int FindChildRaw(int node, const char* p) const {
    // Most keys are not registered: their first two bytes (the second may be the closing
    // quote) already say so, unless one of them starts an escape.
    const auto b0 = static_cast<unsigned char>(p[0]), b1 = static_cast<unsigned char>(p[1]);
    if (b0 != '\\' && b1 != '\\' && !nodes[node].heads.test(b0 << 8 | b1)) return -1;
    return MatchKey(node, p);
  }

  // FindChildRaw for a key that may be registered.
  __attribute__((noinline)) int MatchKey(int node, const char* p) const {
    // A name of up to 16 bytes matches when the key has its bytes and then the closing quote
    // (the name holds no backslash, so that quote is not escaped). The reads stay within the
    // line and its padding: a key is followed by at least ':', a value and '}'.
    for (const Key& k : nodes[node].keys) {
      if (k.len > 16 || p[k.len] != '"') continue;
      if (k.len <= 8 ? (Load64(p) & k.mask) == k.first
                     : Load64(p) == k.first && Load64(p + k.len - 8) == k.last)
        return k.child;
    }
    // Otherwise: the key's length, the first quote, found eight bytes at a time.
    size_t len = 0;
    while (true) {
      const uint64_t w = Load64(p + len);
      const uint64_t quote = BytesEqual(w, '"'), escape = BytesEqual(w, '\\');
      if ((quote | escape) != 0) {
        const size_t q = quote != 0 ? static_cast<size_t>(__builtin_ctzll(quote)) / 8 : 8;
        const size_t e = escape != 0 ? static_cast<size_t>(__builtin_ctzll(escape)) / 8 : 8;
        if (e < q) return -2;
        len += q;
        break;
      }
      len += 8;
    }
    for (const Key& k : nodes[node].keys) {
      if (k.len != len) continue;
      if (len <= 8) {
        // The bytes after the key are read too and masked away.
        const uint64_t mask = len == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * len)) - 1;
        if ((Load64(p) & mask) == k.first) return k.child;
      } else if (Load64(p) == k.first && Load64(p + len - 8) == k.last &&
                 std::memcmp(p, nodes[k.child].name.data(), len) == 0) {
        return k.child;
      }
    }
    return -1;
  }

  // Prepares each node's keys for FindChildRaw.
  void IndexKeys() {
    for (Node& n : nodes) {
      n.keys.clear();
      for (int c : n.children) {
        const std::string& name = nodes[c].name;
        Key k;
        k.len = name.size();
        char first[8] = {}, last[8] = {};
        std::memcpy(first, name.data(), std::min<size_t>(8, name.size()));
        if (name.size() >= 8) std::memcpy(last, name.data() + name.size() - 8, 8);
        k.first = Load64(first);
        k.mask = name.size() >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * name.size())) - 1;
        k.last = Load64(last);
        k.child = c;
        n.keys.push_back(k);
        const auto b0 = static_cast<unsigned char>(name[0]);
        const auto b1 = static_cast<unsigned char>(name.size() > 1 ? name[1] : '"');
        n.heads.set(b0 << 8 | b1);
      }
    }
  }

  static simdjson::error_code ReadScalar(od::value val, bool keep_text, ValueRef* out) {
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
        std::string_view raw;
        if (keep_text) {
          raw = val.raw_json_token();
          while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t' || raw.back() == '\n' ||
                                  raw.back() == '\r')) {
            raw.remove_suffix(1);
          }
        }
        od::number n;
        if (auto e = val.get_number().get(n)) return e;
        switch (n.get_number_type()) {
          case od::number_type::signed_integer:
            *out = ValueRef::Int(n.get_int64());
            break;
          case od::number_type::unsigned_integer:
            *out = ValueRef::Number(static_cast<double>(n.get_uint64()));
            break;
          default:
            *out = ValueRef::Number(n.get_double());
            break;
        }
        out->s = raw;
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
        *out = ValueRef::Raw(raw);
        return simdjson::SUCCESS;
      }
      default: {
        od::array arr;
        std::string_view raw;
        if (auto e = val.get_array().get(arr)) return e;
        if (auto e = arr.raw_json().get(raw)) return e;
        *out = ValueRef::Raw(raw);
        return simdjson::SUCCESS;
      }
    }
  }

  // Walks every field of `obj` once; fields on a registered path are read, others skipped.
  simdjson::error_code Walk(od::object obj, int node, std::vector<ValueRef>* values) {
    for (auto field_result : obj) {
      od::field field;
      if (auto e = std::move(field_result).get(field)) return e;
      int child = FindChildRaw(node, reinterpret_cast<const char*>(field.key().raw()));
      if (child == -2) {
        std::string_view key;
        if (auto e = field.unescaped_key().get(key)) return e;
        child = FindChild(node, key);
      }
      if (child < 0) continue;
      od::value val = field.value();
      const Node& n = nodes[child];
      if (n.slot >= 0) {
        if (auto e = ReadScalar(val, n.keep_text, &(*values)[n.slot])) return e;
        continue;
      }
      od::json_type type;
      if (auto e = val.type().get(type)) return e;
      if (type != od::json_type::object) continue;  // not an object: its sub-paths stay null
      od::object sub;
      if (auto e = val.get_object().get(sub)) return e;
      if (auto e = Walk(sub, child, values)) return e;
    }
    return simdjson::SUCCESS;
  }
};

FieldExtractor::FieldExtractor() : impl_(std::make_unique<Impl>()) {}
FieldExtractor::~FieldExtractor() = default;

Status FieldExtractor::AddPath(std::string_view dotted, int* slot, bool keep_number_text) {
  for (size_t i = 0; i < paths_.size(); ++i) {
    if (paths_[i] == dotted) {
      *slot = static_cast<int>(i);
      for (auto& n : impl_->nodes) {
        if (n.slot == *slot) n.keep_text |= keep_number_text;
      }
      return Status::Ok();
    }
  }
  int node = 0;
  size_t pos = 0;
  while (true) {
    size_t dot = dotted.find('.', pos);
    std::string_view seg =
        dotted.substr(pos, dot == std::string_view::npos ? std::string_view::npos : dot - pos);
    if (seg.empty()) {
      return Status::InvalidArgument(fmt::format(
          "field path \"{}\" has an empty segment (write paths like req.method)", dotted));
    }
    int child = impl_->FindChild(node, seg);
    if (child < 0) {
      child = static_cast<int>(impl_->nodes.size());
      impl_->nodes.push_back(Impl::Node{std::string(seg), -1, {}, false, {}, {}});
      impl_->nodes[node].children.push_back(child);
    }
    node = child;
    if (dot == std::string_view::npos) break;
    pos = dot + 1;
  }
  *slot = static_cast<int>(paths_.size());
  impl_->nodes[node].slot = *slot;
  impl_->nodes[node].keep_text = keep_number_text;
  paths_.emplace_back(dotted);
  return Status::Ok();
}

Status FieldExtractor::Finish() {
  for (const auto& n : impl_->nodes) {
    if (n.name.find_first_of("\"\\") != std::string::npos) {
      return Status::InvalidArgument(fmt::format(
          "field name \"{}\" contains a quote or a backslash, which logtide cannot address",
          n.name));
    }
    if (n.slot >= 0 && !n.children.empty()) {
      for (const auto& p : paths_) {
        if (p.size() > paths_[n.slot].size() &&
            p.compare(0, paths_[n.slot].size() + 1, paths_[n.slot] + ".") == 0) {
          return Status::InvalidArgument(
              fmt::format("field \"{}\" is used both as a value and as the object holding \"{}\"; "
                          "use one or the other",
                          paths_[n.slot], p));
        }
      }
    }
  }
  impl_->IndexKeys();
  return Status::Ok();
}

namespace {

// The slow path for a line the fast path refused: full validation, for a precise message.
Status DescribeBadLine(const char* line, size_t size) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  auto error = parser.parse(line, size, true).get(root);
  if (error)
    return Status::DataError(fmt::format("invalid JSON: {}", simdjson::error_message(error)));
  switch (root.type()) {
    case simdjson::dom::element_type::OBJECT:
      return Status::DataError("invalid JSON");
    case simdjson::dom::element_type::ARRAY:
      return Status::DataError("not a JSON object (an array)");
    case simdjson::dom::element_type::STRING:
      return Status::DataError("not a JSON object (a string)");
    case simdjson::dom::element_type::BOOL:
      return Status::DataError("not a JSON object (a boolean)");
    case simdjson::dom::element_type::NULL_VALUE:
      return Status::DataError("not a JSON object (null)");
    default:
      return Status::DataError("not a JSON object (a number)");
  }
}

}  // namespace

Status FieldExtractor::Extract(const char* line, size_t size, size_t capacity,
                               std::vector<ValueRef>* values) {
  values->assign(paths_.size(), ValueRef::Null());
  od::document doc;
  od::object obj;
  auto error = impl_->parser.iterate(line, size, capacity).get(doc);
  if (!error) error = doc.get_object().get(obj);
  if (!error) error = impl_->Walk(obj, 0, values);
  // At the end of the document, current_location() reports OUT_OF_BOUNDS.
  if (!error && doc.current_location().error() != simdjson::OUT_OF_BOUNDS)
    error = simdjson::TRAILING_CONTENT;
  if (error) return DescribeBadLine(line, size);
  return Status::Ok();
}

bool IsValidJson(std::string_view raw) {
  simdjson::dom::parser parser;
  simdjson::dom::element e;
  return parser.parse(raw.data(), raw.size(), true).get(e) == simdjson::SUCCESS;
}

}  // namespace logtide
