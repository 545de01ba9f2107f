#include "state/savepoint_codec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "json/json_text.h"
#include "json/value.h"

namespace logtide {

namespace {

constexpr uint64_t kQuietNan = 0x7ff8000000000000;

void AppendF64(double d, std::string* out) {
  if (std::isnan(d)) {
    // Any NaN, its bits kept (inf + -inf gives another NaN than the quiet one).
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    out->append(bits == kQuietNan ? "\"NaN\"" : fmt::format("\"NaN:{:016x}\"", bits));
  } else if (std::isinf(d)) {
    out->append(d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  } else if (d == 0 && std::signbit(d)) {
    out->append("-0.0");
  } else {
    AppendDouble(d, out);
  }
}

constexpr char kHexDigits[] = "0123456789abcdef";

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// AppendF64's text of a double that is not finite, read back; false for other text.
bool ParseNonFinite(std::string_view s, double* d) {
  if (s == "Infinity" || s == "-Infinity") {
    *d = s[0] == '-' ? -std::numeric_limits<double>::infinity()
                     : std::numeric_limits<double>::infinity();
    return true;
  }
  uint64_t bits = kQuietNan;
  if (s != "NaN") {
    if (s.size() != 20 || s.substr(0, 4) != "NaN:") return false;
    bits = 0;
    for (char c : s.substr(4)) {
      if (HexDigit(c) < 0) return false;
      bits = bits << 4 | static_cast<uint64_t>(HexDigit(c));
    }
  }
  std::memcpy(d, &bits, 8);
  return std::isnan(*d);
}

void AppendOrdered(int64_t v, std::string* out) {
  uint64_t u = static_cast<uint64_t>(v) ^ (uint64_t{1} << 63);
  for (int shift = 56; shift >= 0; shift -= 8) out->push_back(static_cast<char>(u >> shift & 0xFF));
}

void AppendHex(std::string_view s, std::string* out) {
  out->push_back('"');
  for (char c : s) {
    out->push_back(kHexDigits[static_cast<uint8_t>(c) >> 4]);
    out->push_back(kHexDigits[static_cast<uint8_t>(c) & 0xF]);
  }
  out->push_back('"');
}

// The bytes of 2n lowercase hexadecimal digits appended to *out; false for other text.
bool ParseHex(std::string_view s, std::string* out) {
  if (s.size() % 2 != 0) return false;
  for (size_t i = 0; i < s.size(); i += 2) {
    const int hi = HexDigit(s[i]), lo = HexDigit(s[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi << 4 | lo));
  }
  return true;
}

// The JSON of one encoded value (whose strings IsEncodedValues found UTF-8): an object or
// array as {"json":TEXT}, its text as the state holds it.
void AppendEncodedValue(std::string_view bytes, std::string* scratch, std::string* out) {
  const ValueRef v = DecodeValue(&bytes, scratch);
  if (v.type == ValueType::kRaw) {
    // Valid JSON (IsEncodedValues checked it), so UTF-8.
    out->append("{\"json\":");
    AppendJsonString(v.s, out);
    out->push_back('}');
  } else if (v.type == ValueType::kString && FindInvalidUtf8(v.s) != std::string_view::npos) {
    // A string need not be UTF-8: a derived key may cut a character (regexp_extract's \C).
    out->append("{\"hex\":");
    AppendHex(v.s, out);
    out->push_back('}');
  } else if (v.type == ValueType::kNumber && !v.is_int && !std::isfinite(v.d)) {
    out->append("{\"number\":");
    AppendF64(v.d, out);
    out->push_back('}');
  } else {
    AppendJsonValue(v, out);
  }
}

// Appends the EncodeValue of a value's JSON (AppendEncodedValue's); false when it is not one.
bool EncodeJsonValue(simdjson::dom::element e, std::string* out) {
  ValueRef v;
  std::string bytes;
  switch (e.type()) {
    case simdjson::dom::element_type::NULL_VALUE:
      break;
    case simdjson::dom::element_type::BOOL:
      v = ValueRef::Bool(e.get_bool().value_unsafe());
      break;
    case simdjson::dom::element_type::INT64:
      v = ValueRef::Int(e.get_int64().value_unsafe());
      break;
    case simdjson::dom::element_type::UINT64:
      v = ValueRef::Number(static_cast<double>(e.get_uint64().value_unsafe()));
      break;
    case simdjson::dom::element_type::DOUBLE:
      v = ValueRef::Number(e.get_double().value_unsafe());
      break;
    case simdjson::dom::element_type::STRING:
      v = ValueRef::String(e.get_string().value_unsafe());
      break;
    case simdjson::dom::element_type::OBJECT: {
      simdjson::dom::object obj = e.get_object().value_unsafe();
      std::string_view text;
      double d;
      if (obj.size() != 1) return false;
      if (!obj["json"].get_string().get(text)) {
        v = ValueRef::Raw(text);
      } else if (!obj["number"].get_string().get(text) && ParseNonFinite(text, &d)) {
        v = ValueRef::Fraction(d);
      } else if (!obj["hex"].get_string().get(text) && ParseHex(text, &bytes) &&
                 FindInvalidUtf8(bytes) != std::string::npos) {
        v = ValueRef::String(bytes);  // hex only for a string that is not UTF-8
      } else {
        return false;
      }
      break;
    }
    case simdjson::dom::element_type::ARRAY:
      return false;
  }
  const size_t at = out->size();
  EncodeValue(v, out);
  // An object's or array's text must be JSON, as a record writes it as it is.
  return v.type != ValueType::kRaw || IsEncodedValues(std::string_view(*out).substr(at));
}

}  // namespace

// ---- bytes to JSON ----

JsonFromBytes::JsonFromBytes(std::string_view bytes, std::string* json) : r_(bytes), json_(json) {
  json_->push_back('{');
  open_.push_back({true, '}'});
}

Status JsonFromBytes::Finish() {
  if (ok_ && r_.remaining() > 0)
    Fail(fmt::format("{} bytes are left after the last field", r_.remaining()));
  if (!ok_) return Status::Corruption(error_);
  json_->push_back('}');
  return Status::Ok();
}

bool JsonFromBytes::Field(std::string_view name) {
  if (!ok_) return false;
  if (!open_.back().first) json_->push_back(',');
  open_.back().first = false;
  if (!name.empty()) {
    AppendJsonString(name, json_);
    json_->push_back(':');
  }
  return true;
}

bool JsonFromBytes::Read(std::string_view what) {
  if (!ok_) return false;
  if (!r_.ok()) {
    Fail(fmt::format("the bytes end before \"{}\", or it is damaged", what));
    return false;
  }
  return true;
}

template <class T>
T JsonFromBytes::Integer(std::string_view name, T v) {
  if (!Read(name) || !Field(name)) return 0;
  json_->append(std::to_string(v));
  return v;
}

uint64_t JsonFromBytes::U8(std::string_view name) { return Integer<uint64_t>(name, r_.U8()); }

bool JsonFromBytes::Bool(std::string_view name) {
  const uint8_t v = r_.U8();
  if (!Read(name)) return false;
  if (v > 1) {
    Fail(fmt::format("\"{}\" is a flag of {}, neither 0 nor 1", name, v));
    return false;
  }
  if (!Field(name)) return false;
  json_->append(v ? "true" : "false");
  return v;
}

uint64_t JsonFromBytes::U32(std::string_view name) { return Integer<uint64_t>(name, r_.U32()); }

int64_t JsonFromBytes::I32(std::string_view name) {
  return Integer<int64_t>(name, static_cast<int32_t>(r_.U32()));
}

int64_t JsonFromBytes::I64(std::string_view name) { return Integer(name, r_.I64()); }

uint64_t JsonFromBytes::U64(std::string_view name) { return Integer(name, r_.U64()); }

void JsonFromBytes::F64(std::string_view name) {
  const double v = r_.F64();
  if (!Read(name) || !Field(name)) return;
  AppendF64(v, json_);
}

void JsonFromBytes::I128(std::string_view name) {
  const __int128 v = r_.I128();
  if (!Read(name) || !Field(name)) return;
  json_->push_back('"');
  AppendInt128(v, json_);
  json_->push_back('"');
}

uint64_t JsonFromBytes::Varint(std::string_view name) { return Integer(name, r_.Varint()); }

int64_t JsonFromBytes::OrderedI64(std::string_view name) {
  uint64_t u = 0;
  for (char c : r_.Take(8)) u = u << 8 | static_cast<uint8_t>(c);
  return Integer(name, static_cast<int64_t>(u ^ (uint64_t{1} << 63)));
}

std::string_view JsonFromBytes::Bytes(std::string_view name) {
  const std::string_view s = r_.Bytes();
  if (!Read(name) || !Field(name)) return {};
  if (FindInvalidUtf8(s) == std::string_view::npos) {
    AppendJsonString(s, json_);
  } else {
    json_->append("{\"hex\":");
    AppendHex(s, json_);
    json_->push_back('}');
  }
  return s;
}

void JsonFromBytes::KeyBytes(std::string_view name) {
  const std::string_view s = r_.Bytes();
  if (!Read(name)) return;
  AppendKey(name, s);
}

void JsonFromBytes::Value(std::string_view name) {
  const std::string_view s = r_.Bytes();
  if (!Read(name)) return;
  if (!IsEncodedKey(s, 1)) {
    return Fail(fmt::format("\"{}\" is not one encoded value", name));
  }
  if (Field(name)) AppendEncodedValue(s, &scratch_, json_);
}

void JsonFromBytes::Hex(std::string_view name, uint64_t n) {
  const std::string_view s = r_.Take(n);
  if (Read(name) && Field(name)) AppendHex(s, json_);
}

void JsonFromBytes::Key(std::string_view name) {
  const std::string_view s = r_.Take(r_.remaining());
  if (Read(name)) AppendKey(name, s);
}

void JsonFromBytes::AppendKey(std::string_view name, std::string_view s) {
  if (!IsEncodedValues(s)) {
    return Fail(fmt::format("\"{}\" is not a group key", name));
  }
  if (!Field(name)) return;
  json_->push_back('[');
  size_t values = 0;
  while (!s.empty()) {
    if (values++ > 0) json_->push_back(',');
    // One value's bytes: decode a copy to learn where it ends.
    std::string_view rest = s;
    DecodeValue(&rest, &scratch_);
    AppendEncodedValue(s.substr(0, s.size() - rest.size()), &scratch_, json_);
    s = rest;
  }
  json_->push_back(']');
  if (key_values_ != kAnyKeyValues && values != key_values_) {
    Fail(fmt::format("\"{}\" holds {} values; a key of this job holds {} (one per --by key)", name,
                     values, key_values_));
  }
}

void JsonFromBytes::Object(std::string_view name) {
  if (!Field(name)) return;
  json_->push_back('{');
  open_.push_back({true, '}'});
}

uint64_t JsonFromBytes::List(std::string_view name) {
  const uint64_t n = r_.U32();
  if (!Read(name)) return 0;
  ListOf(name, n);
  return ok_ ? n : 0;
}

void JsonFromBytes::ListOf(std::string_view name, uint64_t) {
  if (!Field(name)) return;
  json_->push_back('[');
  open_.push_back({true, ']'});
}

void JsonFromBytes::End() {
  if (!ok_) return;
  json_->push_back(open_.back().closer);
  open_.pop_back();
}

bool JsonFromBytes::Has(std::string_view) { return ok_ && r_.remaining() > 0; }

void JsonFromBytes::Fail(std::string_view reason) {
  if (!ok_) return;
  ok_ = false;
  error_.assign(reason);
}

// ---- JSON to bytes ----

BytesFromJson::BytesFromJson(simdjson::dom::object root, std::string* bytes)
    : bytes_(bytes), w_(bytes) {
  Frame f;
  f.object = root;
  frames_.push_back(std::move(f));
}

Status BytesFromJson::Finish() {
  if (ok_ && frames_.size() == 1 && frames_[0].used != frames_[0].object.size())
    Refuse(Extra(frames_[0]));
  if (!ok_) return Status::Corruption(error_);
  return Status::Ok();
}

std::string BytesFromJson::Path(std::string_view name) const {
  std::string path;
  for (size_t i = 1; i < frames_.size(); ++i) {
    if (!path.empty() && frames_[i].name[0] != '[') path += '.';
    path += frames_[i].name;
  }
  if (frames_.back().is_array) {
    path += fmt::format("[{}]", frames_.back().used);
  } else if (!name.empty()) {
    if (!path.empty()) path += '.';
    path += name;
  }
  return path;
}

bool BytesFromJson::Get(std::string_view name, simdjson::dom::element* e) {
  if (!ok_) return false;
  field_ = Path(name);
  Frame& f = frames_.back();
  if (f.is_array) {
    if (f.next == f.array.end()) {
      Refuse(fmt::format("\"{}\" has too few elements", Path("")));
      return false;
    }
    *e = *f.next;
    ++f.next;
  } else if (f.object[name].get(*e)) {
    Refuse(fmt::format("\"{}\" is missing", field_));
    return false;
  }
  if (!f.is_array) f.read.push_back(name);
  ++f.used;
  return true;
}

bool BytesFromJson::Uint(std::string_view name, uint64_t max, uint64_t* v) {
  simdjson::dom::element e;
  if (!Get(name, &e)) return false;
  if (e.get_uint64().get(*v) || *v > max) {
    Refuse(fmt::format("\"{}\" is not a whole number from 0 to {}", field_, max));
    return false;
  }
  return true;
}

bool BytesFromJson::Int(std::string_view name, int64_t min, int64_t max, int64_t* v) {
  simdjson::dom::element e;
  if (!Get(name, &e)) return false;
  if (e.get_int64().get(*v) || *v < min || *v > max) {
    Refuse(fmt::format("\"{}\" is not a whole number from {} to {}", field_, min, max));
    return false;
  }
  return true;
}

uint64_t BytesFromJson::U8(std::string_view name) {
  uint64_t v = 0;
  if (Uint(name, UINT8_MAX, &v)) w_.U8(static_cast<uint8_t>(v));
  return v;
}

bool BytesFromJson::Bool(std::string_view name) {
  simdjson::dom::element e;
  bool v = false;
  if (!Get(name, &e)) return false;
  if (e.get_bool().get(v)) {
    Refuse(fmt::format("\"{}\" is not true or false", field_));
    return false;
  }
  w_.U8(v ? 1 : 0);
  return v;
}

uint64_t BytesFromJson::U32(std::string_view name) {
  uint64_t v = 0;
  if (Uint(name, UINT32_MAX, &v)) w_.U32(static_cast<uint32_t>(v));
  return v;
}

int64_t BytesFromJson::I32(std::string_view name) {
  int64_t v = 0;
  if (Int(name, INT32_MIN, INT32_MAX, &v)) w_.U32(static_cast<uint32_t>(static_cast<int32_t>(v)));
  return v;
}

int64_t BytesFromJson::I64(std::string_view name) {
  int64_t v = 0;
  if (Int(name, INT64_MIN, INT64_MAX, &v)) w_.I64(v);
  return v;
}

uint64_t BytesFromJson::U64(std::string_view name) {
  uint64_t v = 0;
  if (Uint(name, UINT64_MAX, &v)) w_.U64(v);
  return v;
}

uint64_t BytesFromJson::Varint(std::string_view name) {
  uint64_t v = 0;
  if (Uint(name, UINT64_MAX, &v)) w_.Varint(v);
  return v;
}

int64_t BytesFromJson::OrderedI64(std::string_view name) {
  int64_t v = 0;
  if (Int(name, INT64_MIN, INT64_MAX, &v)) AppendOrdered(v, bytes_);
  return v;
}

void BytesFromJson::F64(std::string_view name) {
  simdjson::dom::element e;
  if (!Get(name, &e)) return;
  double d = 0;
  std::string_view s;
  if (!e.get_string().get(s)) {
    if (!ParseNonFinite(s, &d)) {
      return Refuse(fmt::format(
          "\"{}\" is not a number, \"Infinity\", \"-Infinity\", \"NaN\" or \"NaN:BITS\"", field_));
    }
  } else if (e.get_double().get(d)) {
    return Refuse(fmt::format("\"{}\" is not a number", field_));
  }
  w_.F64(d);
}

void BytesFromJson::I128(std::string_view name) {
  simdjson::dom::element e;
  if (!Get(name, &e)) return;
  std::string_view s;
  bool ok = !e.get_string().get(s);
  const bool negative = ok && !s.empty() && s[0] == '-';
  std::string_view digits = negative ? s.substr(1) : s;
  ok = ok && !digits.empty() && (digits.size() == 1 || digits[0] != '0');
  // Accumulated negative, so that the smallest value (-2^127) fits.
  __int128 v = 0;
  for (char c : digits) {
    if (!ok) break;
    ok = c >= '0' && c <= '9' && !__builtin_mul_overflow(v, 10, &v) &&
         !__builtin_sub_overflow(v, c - '0', &v);
  }
  if (ok && !negative) ok = !__builtin_mul_overflow(v, -1, &v);
  if (!ok || (negative && digits == "0")) {
    return Refuse(fmt::format("\"{}\" is not a string of a 128-bit integer's decimal digits",
                            field_));
  }
  w_.I128(v);
}

std::string_view BytesFromJson::Bytes(std::string_view name) {
  simdjson::dom::element e;
  if (!Get(name, &e)) return {};
  std::string_view s;
  if (!e.get_string().get(s)) {
    w_.Bytes(s);
    return s;
  }
  simdjson::dom::object obj;
  hex_bytes_.clear();
  // Hex only for bytes that are not UTF-8: one text per state.
  if (e.get_object().get(obj) || obj.size() != 1 || obj["hex"].get_string().get(s) ||
      !ParseHex(s, &hex_bytes_) || FindInvalidUtf8(hex_bytes_) == std::string::npos) {
    Refuse(fmt::format(
        "\"{}\" is not a string, or {{\"hex\":HEX}} of bytes that are not UTF-8", field_));
    return {};
  }
  w_.Bytes(hex_bytes_);
  return hex_bytes_;
}

void BytesFromJson::KeyBytes(std::string_view name) {
  simdjson::dom::element e;
  if (!Get(name, &e)) return;
  std::string key;
  EncodeKey(e, &key);
  if (ok_) w_.Bytes(key);
}

void BytesFromJson::Value(std::string_view name) {
  simdjson::dom::element e;
  if (!Get(name, &e)) return;
  std::string encoded;
  if (!EncodeJsonValue(e, &encoded)) {
    return Refuse(fmt::format("\"{}\" is not a value (null, true, false, a number, a string, or "
                            "{{\"json\":TEXT}} for an object or array, {{\"hex\":HEX}}, {{\"number\":\"Infinity\"}})",
                            field_));
  }
  w_.Bytes(encoded);
}

void BytesFromJson::Hex(std::string_view name, uint64_t n) {
  simdjson::dom::element e;
  if (!Get(name, &e)) return;
  std::string_view s;
  if (e.get_string().get(s) || s.size() != 2 * n || !ParseHex(s, bytes_)) {
    Refuse(fmt::format("\"{}\" is not {} lowercase hexadecimal digits", field_, 2 * n));
  }
}

void BytesFromJson::Key(std::string_view name) {
  simdjson::dom::element e;
  if (Get(name, &e)) EncodeKey(e, bytes_);
}

void BytesFromJson::EncodeKey(simdjson::dom::element e, std::string* out) {
  simdjson::dom::array values;
  if (e.get_array().get(values)) return Refuse(fmt::format("\"{}\" is not an array", field_));
  if (key_values_ != kAnyKeyValues && values.size() != key_values_) {
    return Refuse(fmt::format("\"{}\" holds {} values; a key of this job holds {} (one per --by key)",
                              field_, values.size(), key_values_));
  }
  for (simdjson::dom::element v : values) {
    if (!EncodeJsonValue(v, out)) {
      return Refuse(fmt::format("\"{}\" holds what is not a value (null, true, false, a number, "
                              "a string, {{\"json\":TEXT}} for an object or array, {{\"hex\":HEX}}, {{\"number\":\"Infinity\"}})",
                              field_));
    }
  }
}

void BytesFromJson::Open(std::string_view name, bool is_array, uint64_t* n) {
  simdjson::dom::element e;
  if (!Get(name, &e)) return;
  Frame f;
  f.name = frames_.back().is_array ? fmt::format("[{}]", frames_.back().used - 1)
                                   : std::string(name);
  f.is_array = is_array;
  if (is_array ? e.get_array().get(f.array) : e.get_object().get(f.object)) {
    return Refuse(fmt::format("\"{}\" is not an {}", field_, is_array ? "array" : "object"));
  }
  if (is_array) {
    f.next = f.array.begin();
    *n = f.array.size();
  }
  frames_.push_back(std::move(f));
}

void BytesFromJson::Object(std::string_view name) {
  uint64_t n = 0;
  Open(name, false, &n);
}

uint64_t BytesFromJson::List(std::string_view name) {
  uint64_t n = 0;
  Open(name, true, &n);
  if (!ok_) return 0;
  if (n > UINT32_MAX) {
    Refuse(fmt::format("\"{}\" has more elements than a state holds", Path("")));
    return 0;
  }
  w_.U32(static_cast<uint32_t>(n));
  return n;
}

void BytesFromJson::ListOf(std::string_view name, uint64_t n) {
  uint64_t size = 0;
  Open(name, true, &size);
  if (ok_ && size != n) {
    frames_.pop_back();
    Refuse(fmt::format("\"{}\" has {} elements, not the {} an earlier field says", Path(name), size,
                     n));
  }
}

void BytesFromJson::End() {
  if (!ok_) return;
  const Frame& f = frames_.back();
  if (f.is_array ? f.next != f.array.end() : f.used != f.object.size()) return Refuse(Extra(f));
  frames_.pop_back();
}

bool BytesFromJson::Has(std::string_view name) {
  simdjson::dom::element e;
  return ok_ && !frames_.back().is_array && !frames_.back().object[name].get(e);
}

void BytesFromJson::Fail(std::string_view reason) {
  Refuse(fmt::format("\"{}\": {}", field_, reason));
}

void BytesFromJson::Refuse(std::string reason) {
  if (!ok_) return;
  ok_ = false;
  error_ = std::move(reason);
}

std::string BytesFromJson::Extra(const Frame& f) const {
  const std::string path = Path("");
  if (f.is_array) {
    return fmt::format("\"{}\" has {} elements, more than its form has ({})", path,
                       f.array.size(), f.used);
  }
  std::string_view name;
  bool twice = false;
  if (!ExtraField(f.object, f.read, &name, &twice))
    return fmt::format("\"{}\" has fields its form does not have", path);
  const std::string at = path.empty() ? std::string(name) : path + "." + std::string(name);
  return twice ? fmt::format("\"{}\" is given twice", at)
               : fmt::format("\"{}\" is not a field of its form", at);
}

bool ExtraField(simdjson::dom::object obj, const std::vector<std::string_view>& read,
                std::string_view* name, bool* twice) {
  std::vector<std::string_view> seen;
  for (auto [key, value] : obj) {
    const std::string_view n(key.data(), key.size());
    *name = n;
    *twice = std::find(seen.begin(), seen.end(), n) != seen.end();
    if (*twice || std::find(read.begin(), read.end(), n) == read.end()) return true;
    seen.push_back(n);
  }
  return false;
}

Status DescribeAsJson(std::string_view bytes, const std::function<void(StateCodec*)>& describe,
                      simdjson::dom::parser* parser, std::string* json, size_t key_values) {
  const size_t from = json->size();
  JsonFromBytes out(bytes, json);
  out.set_key_values(key_values);
  describe(&out);
  if (Status s = out.Finish(); !s.ok()) return s;
  simdjson::dom::object obj;
  if (parser->parse(std::string_view(*json).substr(from)).get(obj))
    return Status::Corruption("its text is not JSON");
  std::string again;
  BytesFromJson in(obj, &again);
  in.set_key_values(key_values);
  describe(&in);
  if (!in.Finish().ok() || again != bytes)
    return Status::Corruption("its text does not read back as the same bytes");
  return Status::Ok();
}

}  // namespace logtide
