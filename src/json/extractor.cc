#include "json/extractor.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <array>
#include <bit>
#include <bitset>
#include <charconv>
#include <cstring>

#include "json/canonical_json.h"
#include "json/dom_parse.h"
#include "json/field_path.h"
#include "json/json_checker.h"
#include "json/number_reader.h"

namespace logtide {

static_assert(FieldExtractor::kPadding >= simdjson::SIMDJSON_PADDING,
              "a line must have simdjson's padding readable past its end");

// Keys and strings are scanned eight bytes at a time, their first byte in the low byte.
static_assert(std::endian::native == std::endian::little,
              "the key and string scans assume a little-endian CPU");

// The registered paths as a tree; node 0 is the root object.
struct FieldExtractor::Impl {
  struct Key {
    uint64_t first = 0;  // the name's first 8 bytes, zero-filled
    uint64_t last = 0;   // its last 8 bytes, when it has at least 8
    uint64_t mask = 0;   // for names of at most 8 bytes: the bytes of `first` that count
    size_t len = 0;
    int child = -1;
  };
  // A key's raw bytes (at most 16, with no backslash), for the memo.
  struct Memo {
    uint64_t first = 0, last = 0;  // the first 8 bytes (masked) and the last 8
    uint64_t mask = 0;
    uint32_t len = 0;
    bool valid = false;
    int child = -1;
  };
  static constexpr size_t kMemoFields = 32;

  struct Node {
    std::string name;     // an object key; or, when is_index, an array element:
    bool is_index = false;
    int64_t index = 0;    // ... its index, negative from the end
    bool has_index_children = false;
    int slot = -1;  // >= 0 for a leaf
    std::vector<int> children;
    bool keep_text = false;    // keep a number's source text (ValueRef::s)
    bool deferred = false;     // a scalar value is found, not read (FieldExtractor::Defer)
    std::vector<Key> keys;     // the children, for matching raw keys
    std::bitset<65536> heads;  // the children's first two bytes (the quote after a 1-byte name)
    // What the key of each of the first kMemoFields fields of this object matched in the last
    // line: lines of one log mostly repeat their keys in the same order, so one compare (a
    // branch the CPU predicts) usually settles the key.
    std::vector<Memo> memo;
    // The slots of the paths below this node (IndexKeys), and the line in which its key was
    // last seen: a key that appears twice takes its last value, also as the parent of paths
    // (the later copy's sub-fields replace the earlier one's, absent ones null).
    std::vector<int> below;
    uint64_t seen_in = 0;
  };
  std::vector<Node> nodes{Node{}};
  uint64_t line_number = 0;  // lines walked, for Node::seen_in
  // Deferred leaves (FieldExtractor::Defer), and per slot the token of the value a walk found
  // there. An entry whose `line` is not the line walked last is absent.
  struct Deferred {
    int slot;
    bool keep_text;
  };
  struct Pending {
    uint64_t line = 0;
    uint32_t token = 0;
  };
  std::vector<Deferred> deferred;
  // Deferred values a later copy of their key replaced in the current line: ReadDeferred
  // checks them (an eager walk reads every value of a path), into `dropped_value`.
  std::vector<uint32_t> dropped;
  ValueRef dropped_value;
  std::vector<Pending> pending;  // per slot

  int FindChild(int node, std::string_view name) const {
    for (int c : nodes[node].children) {
      if (!nodes[c].is_index && nodes[c].name == name) return c;
    }
    return -1;
  }
  int FindChild(int node, const PathSegment& seg) const {
    if (!seg.is_index) return FindChild(node, seg.key);
    for (int c : nodes[node].children) {
      if (nodes[c].is_index && nodes[c].index == seg.index) return c;
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

  // How many times a walk may read one token below `node`: once, but an array element that
  // two index children name (tags[0] and tags[-1] of a one-element array) is read by each, and
  // everything inside it too.
  size_t Reads(int node) const {
    size_t indices = 0;
    for (int c : nodes[node].children) indices += nodes[c].is_index;
    size_t most = 1;
    for (int c : nodes[node].children) {
      most = std::max(most, (nodes[c].is_index ? indices : 1) * Reads(c));
    }
    return most;
  }

  // Prepares each node's keys for FindChildRaw.
  void IndexKeys() {
    for (Node& n : nodes) {
      n.memo.assign(kMemoFields, Memo{});
      n.keys.clear();
      for (int c : n.children) {
        if (nodes[c].is_index) continue;  // WalkArray's
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

  // ---- the walk over stage 1's structural index -------------------------------------------
  // simdjson's stage 1 marks every structural character ({ } [ ] : ,) and the first byte of
  // every string, number and atom; `idx[k]` is the position of token k in the indexed piece of
  // lines (buf). An object is `{` (key `:` value (`,` key `:` value)*)? `}`, so the walk reads
  // keys and values by their tokens and compares only the keys it must. (simdjson's On-Demand
  // API walks about as many instructions per field, but runs stage 1 once per document: once
  // per line.)

  StructuralIndex own;                 // for a line outside the caller's index
  std::unique_ptr<uint8_t[]> scratch;  // unescaped strings of the current line
  size_t scratch_size = 0;
  size_t reads = 1;  // Reads(0), set by Finish
  uint8_t* scratch_end = nullptr;
  std::vector<char> open;             // brackets of the container being skipped
  std::vector<uint32_t> elements;     // WalkArray's
  JsonNumberReader numbers;           // the numbers read as values
  simdjson::dom::parser raw_checker;  // objects and arrays read as values
  std::string dom_copy;               // ParseDom's
  // The current line's objects and arrays read as values, in canonical form, and where.
  std::string canon;
  struct RawValue {
    ValueRef* value;
    size_t at, size;
  };
  std::vector<RawValue> raw_values;
  // The indexed run holding the current line, and its tokens.
  const StructuralIndex* index = nullptr;
  const uint8_t* buf = nullptr;
  const uint32_t* idx = nullptr;
  uint32_t n = 0;
  uint32_t limit = 0;  // the current line's end (an offset like idx[k]): the walk stops there

  uint8_t Token(uint32_t k) const { return buf[idx[k]]; }
  static bool IsSpace(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  // The end of scalar token k: the byte after its last non-space byte before token k + 1.
  // REQUIRES: k + 1 < n.
  const uint8_t* ScalarEnd(uint32_t k) const {
    const uint8_t* e = buf + idx[k + 1];
    while (IsSpace(e[-1])) --e;
    return e;
  }

  // Unescapes the string whose opening quote is at `quote` into the scratch buffer.
  bool Unescape(const uint8_t* quote, std::string_view* out) {
    uint8_t* end = index->Unescape(quote + 1, scratch_end);
    if (end == nullptr) return false;
    *out = std::string_view(reinterpret_cast<const char*>(scratch_end),
                            static_cast<size_t>(end - scratch_end));
    scratch_end = end;
    return true;
  }

  // The bytes a string, number or atom can start with.
  static constexpr auto kScalarStart = [] {
    std::array<bool, 256> t{};
    for (const char c : std::string_view("\"-0123456789tfn")) t[static_cast<uint8_t>(c)] = true;
    return t;
  }();

  // Skips the value at token k; *next is the token after it. Containers must close with the
  // bracket that opened them; scalars are not spelled out (as in On-Demand).
  bool Skip(uint32_t k, uint32_t* next) {
    const uint8_t c = Token(k);
    if (c != '{' && c != '[') {
      if (!kScalarStart[c]) return false;
      *next = k + 1;
      return true;
    }
    open.clear();
    for (uint32_t j = k; j < n && idx[j] < limit; ++j) {
      const uint8_t t = Token(j);
      if (t == '{' || t == '[') {
        if (open.size() == StructuralIndex::kMaxDepth) return false;
        open.push_back(static_cast<char>(t));
      } else if (t == '}' || t == ']') {
        if (open.back() != (t == '}' ? '{' : '[')) return false;
        open.pop_back();
        if (open.empty()) {
          *next = j + 1;
          return true;
        }
      }
    }
    return false;
  }

  // ReadValue of an object or array (not the common case).
  __attribute__((noinline)) bool ReadRaw(uint32_t k, ValueRef* out, uint32_t* next) {
    const uint8_t* s = buf + idx[k];
    if (!Skip(k, next)) return false;
    const uint8_t* e = buf + idx[*next - 1] + 1;
    // The text is used as a key or written out: it must be valid JSON in full.
    simdjson::dom::element element;
    if (ParseDom(raw_checker, std::string_view(reinterpret_cast<const char*>(s),
                                               static_cast<size_t>(e - s)),
                 true, &dom_copy, &element)) {
      return false;
    }
    // Compared and written as a JSON value: in canonical form (AppendCanonicalJson), in
    // `canon`, where it is pointed to once the line is read (it may grow meanwhile).
    const size_t at = canon.size();
    AppendCanonicalJson(element, &canon);
    raw_values.push_back(RawValue{out, at, canon.size() - at});
    *out = ValueRef::Raw(std::string_view());
    return true;
  }

  // Reads the value at token k into *out; *next is the token after it.
  // REQUIRES: k + 1 < n (an object's value is followed by ',' or '}').
  __attribute__((always_inline)) bool ReadValue(uint32_t k, bool keep_text, ValueRef* out,
                                                uint32_t* next) {
    const uint8_t* s = buf + idx[k];
    switch (*s) {
      case '"': {
        // The closing quote is the first quote, unless a backslash comes first.
        const uint8_t* p = s + 1;
        while (true) {
          const uint64_t w = Load64(reinterpret_cast<const char*>(p));
          const uint64_t quote = BytesEqual(w, '"'), escape = BytesEqual(w, '\\');
          if ((quote | escape) != 0) {
            const size_t at_quote =
                quote != 0 ? static_cast<size_t>(__builtin_ctzll(quote)) / 8 : 8;
            const size_t at_escape =
                escape != 0 ? static_cast<size_t>(__builtin_ctzll(escape)) / 8 : 8;
            std::string_view text;
            if (at_escape < at_quote) {
              if (!Unescape(s, &text)) return false;
            } else {
              text = std::string_view(reinterpret_cast<const char*>(s + 1),
                                      static_cast<size_t>(p + at_quote - (s + 1)));
            }
            *out = ValueRef::String(text);
            *next = k + 1;
            return true;
          }
          p += 8;
        }
      }
      case '{':
      case '[':
        return ReadRaw(k, out, next);
      default:
        break;
    }
    const uint8_t* e = ScalarEnd(k);
    const std::string_view text(reinterpret_cast<const char*>(s), static_cast<size_t>(e - s));
    *next = k + 1;
    switch (*s) {
      case 't':
        *out = ValueRef::Bool(true);
        return text == "true";
      case 'f':
        *out = ValueRef::Bool(false);
        return text == "false";
      case 'n':
        *out = ValueRef::Null();
        return text == "null";
      default:
        if (!numbers.Read(s, e, out)) return false;
        if (keep_text) out->s = text;
        return true;
    }
  }

  // Returns true when the key at p (after its opening quote) has the memo's bytes.
  static bool SameKey(const Memo& m, const char* p) {
    return m.valid & ((Load64(p) & m.mask) == m.first) &
           (m.len <= 8 || Load64(p + m.len - 8) == m.last) & (p[m.len] == '"');
  }
  // Remembers that the key at p gave `child` (not for a key with an escape, or a long one).
  static void Remember(Memo* m, const char* p, int child) {
    m->valid = false;
    if (child == -2) return;
    size_t len = 0;
    while (len <= 16 && p[len] != '"' && p[len] != '\\') ++len;
    if (len > 16 || p[len] != '"') return;
    char first[8] = {}, last[8] = {};
    std::memcpy(first, p, std::min<size_t>(8, len));
    if (len >= 8) std::memcpy(last, p + len - 8, 8);
    m->first = Load64(first);
    m->last = Load64(last);
    m->mask = len >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * len)) - 1;
    m->len = static_cast<uint32_t>(len);
    m->child = child;
    m->valid = true;
  }

  // Walks the object whose '{' is token k, reading the fields on registered paths below `node`
  // and skipping the others; *next is the token after its '}'.
  // kDefer: some leaves are deferred (a separate instance, so that a query without deferred
  // leaves does not test for them).
  template <bool kDefer>
  bool WalkObject(uint32_t k, int node, std::vector<ValueRef>* values, uint32_t* next) {
    // Locals, so that the stores of values do not make the compiler reload them.
    const uint8_t* const b = buf;
    const uint32_t* const ix = idx;
    const uint32_t count = n, end = limit;
    ++k;
    if (k < count && b[ix[k]] == '}') {
      *next = k + 1;
      return true;
    }
    Memo* memo = nodes[node].memo.data();
    Memo* const memo_end = memo + kMemoFields;
    while (true) {
      // A field needs its key, ':', a value and then ',' or '}'.
      if (k + 3 >= count) return false;
      const uint32_t at = ix[k];
      if (at >= end || b[at] != '"' || b[ix[k + 1]] != ':') return false;
      const uint32_t v = k + 2;
      const uint8_t c = b[ix[v]];
      const char* key = reinterpret_cast<const char*>(b + at + 1);
      int child;
      if (memo != memo_end) {
        if (SameKey(*memo, key)) {
          child = memo->child;
        } else {
          child = FindChildRaw(node, key);
          Remember(memo, key, child);
        }
        ++memo;
      } else {
        child = FindChildRaw(node, key);
      }
      uint32_t after;
      if (child == -1 && c != '{' && c != '[') {
        // A scalar that no path reads (most fields): its first byte is checked, the rest is
        // not spelled out.
        if (!kScalarStart[c]) return false;
        after = v + 1;
      } else if (!Field<kDefer>(node, child, b + at, v, values, &after) || after >= count) {
        return false;
      }
      const uint8_t t = b[ix[after]];
      if (t == '}') {
        *next = after + 1;
        return true;
      }
      if (t != ',') return false;
      k = after + 1;
    }
  }

  // The rest of WalkObject: the value at token v of the field of `node` whose key (for which
  // FindChildRaw gave `child`) starts at `key`.
  template <bool kDefer>
  __attribute__((noinline)) bool Field(int node, int child, const uint8_t* key, uint32_t v,
                                       std::vector<ValueRef>* values, uint32_t* after) {
    if (child == -2) {
      // A key with an escape that may spell a registered name. A bad escape there is not an
      // error, as in the keys no path reads (only the bytes of those are compared): the field
      // just matches nothing.
      std::string_view name;
      child = Unescape(key, &name) ? FindChild(node, name) : -1;
    }
    if (child < 0) return Skip(v, after);
    return Value<kDefer>(child, v, values, after);
  }

  // Reads the value at token v of node `child` (a field's or an array element's).
  template <bool kDefer>
  __attribute__((always_inline)) bool Value(int child, uint32_t v, std::vector<ValueRef>* values,
                                            uint32_t* after) {
    Node& nd = nodes[child];
    if (nd.children.empty()) [[likely]] {  // a leaf (a node is a leaf or a parent, or both)
      if constexpr (kDefer) {
        if (nd.deferred) return Defer(nd.slot, v, after);
      }
      return ReadValue(v, nd.keep_text, &(*values)[nd.slot], after);
    }
    {
      if (nd.seen_in == line_number) {
        for (int slot : nd.below) {
          (*values)[slot] = ValueRef::Null();
          if (kDefer) Drop(slot);
        }
      }
      nd.seen_in = line_number;
      // The paths below an object; the object itself too, when a path reads it whole.
      if (Token(v) == '{') {
        if (!WalkObject<kDefer>(v, child, values, after)) return false;
        if (nd.slot < 0) return true;
      } else if (Token(v) == '[' && nd.has_index_children) {
        if (!WalkArray<kDefer>(v, child, values, after)) return false;
        if (nd.slot < 0) return true;
      }
    }
    if (nd.slot >= 0) {
      if (kDefer && nd.deferred) return Defer(nd.slot, v, after);
      return ReadValue(v, nd.keep_text, &(*values)[nd.slot], after);
    }
    return Skip(v, after);  // not an object: its sub-paths stay null
  }

  // Walks the array whose '[' is token k, reading the elements that `node`'s index children
  // name; *next is the token after its ']'. The elements' first tokens are pushed on `elements`
  // (shared by nested arrays: each walk pops its own).
  template <bool kDefer>
  __attribute__((noinline)) bool WalkArray(uint32_t k, int node, std::vector<ValueRef>* values,
                                           uint32_t* next) {
    const size_t base = elements.size();
    uint32_t j = k + 1;
    if (j < n && idx[j] < limit && Token(j) == ']') {
      *next = j + 1;
    } else {
      while (true) {
        if (j >= n || idx[j] >= limit) return false;
        elements.push_back(j);
        uint32_t after;
        if (!Skip(j, &after) || after >= n) return false;
        const uint8_t t = Token(after);
        if (t == ']') {
          *next = after + 1;
          break;
        }
        if (t != ',') return false;
        j = after + 1;
      }
    }
    const auto count = static_cast<int64_t>(elements.size() - base);
    bool ok = true;
    for (const int c : nodes[node].children) {
      if (!ok) break;
      if (!nodes[c].is_index) continue;
      const int64_t i = nodes[c].index >= 0 ? nodes[c].index : count + nodes[c].index;
      if (i < 0 || i >= count) continue;  // no such element: null
      uint32_t after;
      ok = Value<kDefer>(c, elements[base + static_cast<size_t>(i)], values, &after);
    }
    elements.resize(base);
    return ok;
  }

  // Notes the value at token v as slot's, for ReadDeferred; an object or array is read now
  // (rare: its canonical text is made while the line's other raw values are).
  // Notes the value at token v as slot's, for ReadDeferred. It is checked only as far as a
  // value nobody reads is (its first byte; an object's or array's brackets).
  __attribute__((always_inline)) bool Defer(int slot, uint32_t v, uint32_t* after) {
    Drop(slot);  // a key met twice: the last value counts
    Pending& p = pending[slot];
    p.line = line_number;
    p.token = v;
    const uint8_t c = Token(v);
    if (c == '{' || c == '[') return Skip(v, after);
    *after = v + 1;
    return kScalarStart[c];
  }

  // Forgets slot's pending value of this line, if any, leaving it for ReadDeferred to check.
  void Drop(int slot) {
    if (pending[slot].line == line_number) [[unlikely]]
      DropNow(slot);
  }
  __attribute__((noinline)) void DropNow(int slot) {
    pending[slot].line = 0;
    dropped.push_back(pending[slot].token);
  }

  // Reads the values Defer noted in the last walk (the others stay null), and checks the ones
  // a later copy replaced: the line then reads as an eager walk reads it.
  bool ReadDeferred(std::vector<ValueRef>* values) {
    // Objects and arrays read here add canonical texts to `canon`, which may move it: the raw
    // values the walk pointed into it are pointed again.
    const char* const old_canon = canon.data();
    const size_t walked_raw = raw_values.size();
    uint32_t next;
    for (const uint32_t token : dropped) {
      if (!ReadValue(token, false, &dropped_value, &next)) return false;
    }
    for (const Deferred& d : deferred) {
      const Pending& p = pending[d.slot];
      if (p.line != line_number) continue;
      if (!ReadValue(p.token, d.keep_text, &(*values)[d.slot], &next)) return false;
    }
    if (raw_values.size() == walked_raw) return true;
    for (size_t i = 0; i < walked_raw && canon.data() != old_canon; ++i) {
      const RawValue& r = raw_values[i];
      if (r.value->type == ValueType::kRaw && r.value->s.data() == old_canon + r.at)
        r.value->s = std::string_view(canon.data() + r.at, r.size);
    }
    PointRawValues(walked_raw);
    return true;
  }

  // Points the placeholders of raw_values[from...] at their canonical texts. Newest first: a
  // value replaced later in the line (a duplicate key) is not a placeholder any more (another
  // type, or already pointed) and keeps what replaced it.
  void PointRawValues(size_t from) {
    for (size_t i = raw_values.size(); i-- > from;) {
      const RawValue& r = raw_values[i];
      if (r.value->type == ValueType::kRaw && r.value->s.data() == nullptr)
        r.value->s = std::string_view(canon.data() + r.at, r.size);
    }
  }

  // Walks the line [line, line + size) with the tokens of `ix`; false when it is not one valid
  // JSON object.
  // REQUIRES: ix->Covers(line, size).
  __attribute__((always_inline)) bool Walk(StructuralIndex* ix, const char* line, size_t size,
                                            std::vector<ValueRef>* values) {
    // Every string of the line may be unescaped `reads` times (Reads()): at most that many
    // copies of the line's bytes, each followed by up to kPadding bytes of simdjson's overrun.
    const size_t need = reads * (size + kPadding) + kPadding;
    if (scratch_size < need) {
      scratch_size = std::max(need, 2 * scratch_size);
      scratch.reset(new uint8_t[scratch_size]);
    }
    index = ix;
    buf = reinterpret_cast<const uint8_t*>(ix->data());
    idx = ix->tokens();
    n = ix->count();
    scratch_end = scratch.get();
    canon.clear();
    raw_values.clear();
    dropped.clear();
    ++line_number;
    const bool defer = !deferred.empty();
    elements.clear();
    const auto begin = static_cast<uint32_t>(line - ix->data());
    const auto end = static_cast<uint32_t>(begin + size);
    limit = end;
    const uint32_t first = ix->Seek(begin);
    uint32_t next;
    // A walk may read a token or two past the line (the run goes on), but a line is good only
    // when its object closes inside it and nothing but spaces follows.
    if (first >= n || idx[first] >= end || Token(first) != '{' ||
        !(defer ? WalkObject<true>(first, 0, values, &next)
                : WalkObject<false>(first, 0, values, &next)) || idx[next - 1] >= end ||
        (next < n && idx[next] < end))
      return false;
    ix->set_cursor(next);
    PointRawValues(0);
    return true;
  }
};

FieldExtractor::FieldExtractor() : impl_(std::make_unique<Impl>()) {}
FieldExtractor::~FieldExtractor() = default;

Status FieldExtractor::AddPath(std::string_view text, int* slot, bool keep_number_text) {
  for (size_t i = 0; i < paths_.size(); ++i) {
    if (paths_[i] == text) {
      *slot = static_cast<int>(i);
      for (auto& n : impl_->nodes) {
        if (n.slot == *slot) n.keep_text |= keep_number_text;
      }
      return Status::Ok();
    }
  }
  FieldPath path;
  size_t at = 0;
  if (Status s = ParseFieldPath(text, &path, &at); !s.ok()) {
    return Status::InvalidArgument(fmt::format("field path \"{}\": {}", text, s.message()));
  }
  if (FieldPathText(path) != text) {
    return Status::InvalidArgument(fmt::format(
        "field path \"{}\" is not in canonical form (\"{}\")", text, FieldPathText(path)));
  }
  int node = 0;
  for (const PathSegment& seg : path) {
    int child = impl_->FindChild(node, seg);
    if (child < 0) {
      child = static_cast<int>(impl_->nodes.size());
      impl_->nodes.emplace_back();
      Impl::Node& c = impl_->nodes.back();
      c.name = seg.key;
      c.is_index = seg.is_index;
      c.index = seg.index;
      impl_->nodes[node].children.push_back(child);
      impl_->nodes[node].has_index_children |= seg.is_index;
    }
    node = child;
  }
  *slot = static_cast<int>(paths_.size());
  impl_->nodes[node].slot = *slot;
  impl_->nodes[node].keep_text = keep_number_text;
  paths_.emplace_back(text);
  return Status::Ok();
}

Status FieldExtractor::Finish() {
  for (const auto& n : impl_->nodes) {
    if (!n.is_index && n.name.find_first_of("\"\\") != std::string::npos) {
      return Status::InvalidArgument(fmt::format(
          "field name \"{}\" contains a quote or a backslash, which logtide cannot address",
          n.name));
    }
  }
  // Each node's slots below it.
  for (size_t i = 0; i < paths_.size(); ++i) {
    if (paths_[i].empty()) continue;  // a placeholder
    FieldPath path;
    size_t at;
    if (!ParseFieldPath(paths_[i], &path, &at).ok()) continue;  // (AddPath parsed it)
    int node = 0;
    for (size_t k = 0; k < path.size(); ++k) {
      node = impl_->FindChild(node, path[k]);
      if (k + 1 < path.size()) impl_->nodes[node].below.push_back(static_cast<int>(i));
    }
  }
  impl_->IndexKeys();
  impl_->reads = impl_->Reads(0);
  for (const Impl::Node& n : impl_->nodes) {
    if (n.deferred) impl_->deferred.push_back(Impl::Deferred{n.slot, n.keep_text});
  }
  if (!impl_->deferred.empty()) impl_->pending.assign(paths_.size(), Impl::Pending{});
  return Status::Ok();
}

void FieldExtractor::Defer(int slot) {
  for (Impl::Node& n : impl_->nodes) {
    if (n.slot == slot) n.deferred = true;
  }
}

Status FieldExtractor::Extract(const char* line, size_t size, size_t capacity,
                               std::vector<ValueRef>* values, StructuralIndex* index) {
  (void)capacity;  // the padding is for reading keys and strings eight bytes at a time
  // Not assign(): kept inline (no call per line).
  if (values->size() != paths_.size()) values->resize(paths_.size());
  std::fill(values->begin(), values->end(), ValueRef::Null());
  if (index == nullptr || !index->Find(line, size)) {
    index = &impl_->own;
    if (!index->Build(line, size)) return DescribeBadLine(impl_->raw_checker, &impl_->dom_copy, line, size);
  }
  if (!impl_->Walk(index, line, size, values))
    return DescribeBadLine(impl_->raw_checker, &impl_->dom_copy, line, size);
  return Status::Ok();
}

Status FieldExtractor::ExtractRest(const char* line, size_t size, std::vector<ValueRef>* values) {
  if (!impl_->ReadDeferred(values)) return DescribeBadLine(impl_->raw_checker, &impl_->dom_copy, line, size);
  return Status::Ok();
}

}  // namespace logtide
