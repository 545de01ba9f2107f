// Scalar JSON values as logtide sees them, their total order, and a compact byte encoding
// used for group keys and distinct sets.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace logtide {

// In key order: null < false < true < numbers < strings < raw (objects and arrays).
enum class ValueType : uint8_t { kNull = 0, kFalse, kTrue, kNumber, kString, kRaw };

// A borrowed value. For kString, `s` is the unescaped text; for kRaw, the JSON source text of
// an object or array; for kNumber, `s` is the number's source text when the extractor was asked
// to keep it (FieldExtractor::AddPath), and empty otherwise.
// Numbers are integers (`is_int`, in `i`) when their value is integral and fits int64
// (so 1.0 and 1 are the same number, as in jq), doubles otherwise.
struct ValueRef {
  ValueType type = ValueType::kNull;
  bool is_int = false;
  int64_t i = 0;
  double d = 0;
  std::string_view s;

  static ValueRef Null() { return ValueRef(); }
  static ValueRef Bool(bool b) {
    ValueRef v;
    v.type = b ? ValueType::kTrue : ValueType::kFalse;
    return v;
  }
  static ValueRef Int(int64_t i) {
    ValueRef v;
    v.type = ValueType::kNumber;
    v.is_int = true;
    v.i = i;
    v.d = static_cast<double>(i);
    return v;
  }
  // Returns a number, as an integer when `d` is integral and within int64.
  static ValueRef Number(double d) {
    // 2^63 is exactly representable; anything in [-2^63, 2^63) converts to int64, and is
    // integral when it converts back unchanged (a conversion, not a call to trunc()).
    if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
      const auto i = static_cast<int64_t>(d);
      if (static_cast<double>(i) == d) return Int(i);
    }
    ValueRef v;
    v.type = ValueType::kNumber;
    v.d = d;
    return v;
  }
  // Number(d) for a d the caller knows is not integral: no test.
  static ValueRef Fraction(double d) {
    ValueRef v;
    v.type = ValueType::kNumber;
    v.d = d;
    return v;
  }
  static ValueRef String(std::string_view s) {
    ValueRef v;
    v.type = ValueType::kString;
    v.s = s;
    return v;
  }
  static ValueRef Raw(std::string_view s) {
    ValueRef v;
    v.type = ValueType::kRaw;
    v.s = s;
    return v;
  }

  bool is_null() const { return type == ValueType::kNull; }
  bool is_number() const { return type == ValueType::kNumber; }
};

// Returns <0, 0 or >0: by type order above, numbers numerically, strings by bytes.
int CompareValues(const ValueRef& a, const ValueRef& b);

// Appends an encoding of `v` that orders as the values do: equal values encode to equal bytes,
// and comparing two keys' bytes (memcmp, shorter first on a tie) orders them as CompareValues
// orders them field by field. No encoding is followed by 0xFF, so fields concatenate.
//   null, false, true: the type byte alone.
//   number:  the type byte, the value rounded to a double as 8 big-endian bytes whose unsigned
//            order is the doubles' order, then 2 big-endian bytes: 0x8000 plus the integer's
//            distance from that double (nonzero only for integers beyond 2^53).
//   string, raw: the type byte, the bytes with each 0x00 written 0x00 0xFF, then 0x00.
void EncodeValue(const ValueRef& v, std::string* out);
// Returns true when `bytes` is a sequence of whole EncodeValue outputs (a group key): what
// DecodeValue may then read without going past the end, an object's or array's text valid JSON
// (as a record writes it). For bytes restored from a state file.
bool IsEncodedValues(std::string_view bytes);
// Returns true when `bytes` is a group key of `fields` values: exactly that many whole
// EncodeValue outputs (one per --by field, as a record has one column for each).
bool IsEncodedKey(std::string_view bytes, size_t fields);
// Decodes one value at the front of *in and advances it. A string or raw value borrows from
// the bytes of *in, or, when it holds a 0x00 byte, from *scratch (then valid until scratch
// changes). REQUIRES: *in starts with the output of EncodeValue.
ValueRef DecodeValue(std::string_view* in, std::string* scratch);

}  // namespace logtide
