#include "json/value.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

namespace logtide {
namespace {

TEST_CASE("key order: null < false < true < numbers < strings") {
  std::vector<ValueRef> ordered = {
      ValueRef::Null(),     ValueRef::Bool(false),  ValueRef::Bool(true),
      ValueRef::Int(-5),    ValueRef::Number(-4.5), ValueRef::Int(3),
      ValueRef::String(""), ValueRef::String("B"),  ValueRef::String("a")};
  for (size_t i = 0; i < ordered.size(); ++i) {
    for (size_t j = 0; j < ordered.size(); ++j) {
      INFO(i << " vs " << j);
      int c = CompareValues(ordered[i], ordered[j]);
      CHECK((i < j ? c < 0 : i > j ? c > 0 : c == 0));
    }
  }
}

TEST_CASE("integers and doubles compare by value, exactly") {
  CHECK(CompareValues(ValueRef::Int(2), ValueRef::Number(2.5)) < 0);
  CHECK(CompareValues(ValueRef::Number(1e300), ValueRef::Int(INT64_MAX)) > 0);
  // 2^53 + 1 is not a double; the comparison must still see it as larger than 2^53.
  CHECK(CompareValues(ValueRef::Int((int64_t{1} << 53) + 1),
                      ValueRef::Number(9007199254740992.5 - 0.5)) > 0);
}

TEST_CASE("integral doubles are integers") {
  CHECK(ValueRef::Number(3.0).is_int);
  CHECK(ValueRef::Number(-0.0).is_int);
  CHECK_FALSE(ValueRef::Number(0.5).is_int);
  CHECK_FALSE(ValueRef::Number(1e19).is_int);  // beyond int64
}

// Values on every boundary of the number encoding and strings holding 0x00 and 0xFF.
std::vector<ValueRef> EdgeValues(std::vector<std::string>* texts) {
  const int64_t kMax = INT64_MAX, kMin = INT64_MIN, k53 = int64_t{1} << 53;
  std::vector<ValueRef> v = {ValueRef::Null(), ValueRef::Bool(false), ValueRef::Bool(true)};
  for (int64_t i : {kMin, kMin + 1, kMin + 1023, kMin + 1024, kMin + 1025, -k53 - 3, -k53 - 1,
                    -k53, -k53 + 1, int64_t{-1}, int64_t{0}, int64_t{1}, k53 - 1, k53, k53 + 1,
                    k53 + 2, k53 + 3, kMax - 1025, kMax - 1024, kMax - 1023, kMax - 1, kMax})
    v.push_back(ValueRef::Int(i));
  for (double d : {-1e308, -9223372036854775808.0 * 2, -0.5, -1e-300, 0.25, 1e-300, 9.5e15 + 0.5,
                   9223372036854775808.0, 9223372036854775808.0 * 2, 1e308, HUGE_VAL, -HUGE_VAL})
    v.push_back(ValueRef::Number(d));
  *texts = {"", std::string(1, '\0'), std::string("\0\0", 2), std::string("a\0", 2),
            std::string("a\0b", 3), "a", std::string("a\xff", 2), "ab", "b", "\xff",
            std::string("\xff\0", 2)};
  for (const std::string& t : *texts) v.push_back(ValueRef::String(t));
  for (const std::string& t : *texts) v.push_back(ValueRef::Raw(t));
  return v;
}

TEST_CASE("encoding round-trips each value exactly") {
  std::vector<std::string> texts;
  for (const ValueRef& v : EdgeValues(&texts)) {
    std::string buf;
    EncodeValue(v, &buf);
    EncodeValue(ValueRef::Bool(true), &buf);  // something after it
    // Whole; but an object's or array's text must be JSON, which none of these texts is.
    CHECK(IsEncodedValues(buf) == (v.type != ValueType::kRaw));
    std::string_view in = buf;
    std::string scratch;
    const ValueRef got = DecodeValue(&in, &scratch);
    INFO(static_cast<int>(v.type) << " " << v.i << " " << v.d);
    CHECK(got.type == v.type);
    CHECK(got.is_int == v.is_int);
    if (v.is_int) CHECK(got.i == v.i);
    if (v.is_number() && !v.is_int) CHECK(got.d == v.d);
    CHECK(got.s == v.s);
    CHECK(DecodeValue(&in, &scratch).type == ValueType::kTrue);
    CHECK(in.empty());
  }
  std::string x, y;
  EncodeValue(ValueRef::Number(7.0), &x);
  EncodeValue(ValueRef::Int(7), &y);
  CHECK(x == y);
}

TEST_CASE("encoded keys compare as bytes exactly as their values compare, field by field") {
  std::vector<std::string> texts;
  const std::vector<ValueRef> values = EdgeValues(&texts);
  // Every pair of values, and every pair of two-field keys built from a sample of them (a
  // short string first: where a terminator meets the next field's type byte).
  std::vector<std::vector<ValueRef>> keys;
  for (const ValueRef& v : values) keys.push_back({v});
  for (size_t i = 0; i < values.size(); i += 3)
    for (size_t j = 0; j < values.size(); j += 2) keys.push_back({values[i], values[j]});
  std::vector<std::string> encoded;
  for (const auto& k : keys) {
    std::string e;
    for (const ValueRef& v : k) EncodeValue(v, &e);
    encoded.push_back(e);
  }
  size_t wrong = 0, compared = 0;
  for (size_t a = 0; a < keys.size(); ++a) {
    for (size_t b = 0; b < keys.size(); ++b) {
      if (keys[a].size() != keys[b].size()) continue;
      int want = 0;
      for (size_t f = 0; f < keys[a].size() && want == 0; ++f)
        want = CompareValues(keys[a][f], keys[b][f]);
      const int c = encoded[a].compare(encoded[b]);
      const int got = c < 0 ? -1 : c > 0 ? 1 : 0;
      ++compared;
      if (got != want) {
        ++wrong;
        UNSCOPED_INFO("keys " << a << " and " << b << ": bytes say " << got << ", values "
                              << want);
      }
    }
  }
  CHECK(compared > 10000);
  CHECK(wrong == 0);
}

TEST_CASE("IsEncodedValues accepts whole encodings and refuses any cut or bad byte") {
  std::string buf;
  EncodeValue(ValueRef::String("key"), &buf);
  EncodeValue(ValueRef::Int(42), &buf);
  EncodeValue(ValueRef::Bool(true), &buf);
  EncodeValue(ValueRef::Raw("[1]"), &buf);
  CHECK(IsEncodedValues(buf));
  CHECK(IsEncodedValues(""));  // no --by: the empty key
  // Every strict prefix that cuts a value is refused; the cuts between values are whole.
  size_t whole = 0;
  for (size_t n = 0; n < buf.size(); ++n) whole += IsEncodedValues(buf.substr(0, n));
  CHECK(whole == 4);  // "", after the string, after the number, after true
  std::string bad = buf;
  bad[0] = 9;  // no such type
  CHECK_FALSE(IsEncodedValues(bad));
  bad = buf;
  bad[4] = 'x';  // the string's terminator: it now runs into the number, and on
  CHECK_FALSE(IsEncodedValues(bad));
  // A number's distance from its double, where no integer is that far.
  std::string n;
  EncodeValue(ValueRef::Number(0.5), &n);
  for (int byte : {9, 10}) {
    bad = n;
    bad[byte] = static_cast<char>(bad[byte] ^ 1);
    CHECK_FALSE(IsEncodedValues(bad));
  }
  // Two encodings of one value: -0.0's bits stand for 0, which is encoded as +0.
  std::string zero;
  EncodeValue(ValueRef::Fraction(-0.0), &zero);
  CHECK_FALSE(IsEncodedValues(zero));
}

}  // namespace
}  // namespace logtide
