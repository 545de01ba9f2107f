#include "json/value.h"

#include <catch2/catch.hpp>

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

TEST_CASE("encoding round-trips and equal values encode equally") {
  std::string buf;
  EncodeValue(ValueRef::String("a\0b"), &buf);
  EncodeValue(ValueRef::Int(-1), &buf);
  EncodeValue(ValueRef::Null(), &buf);
  EncodeValue(ValueRef::Number(0.25), &buf);
  std::string_view in = buf;
  CHECK(DecodeValue(&in).s == "a");
  CHECK(DecodeValue(&in).i == -1);
  CHECK(DecodeValue(&in).is_null());
  CHECK(DecodeValue(&in).d == 0.25);
  CHECK(in.empty());
  std::string x, y;
  EncodeValue(ValueRef::Number(7.0), &x);
  EncodeValue(ValueRef::Int(7), &y);
  CHECK(x == y);
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
  bad[1] = '\x7f';  // the string's length now runs past the end
  CHECK_FALSE(IsEncodedValues(bad));
  bad = buf;
  bad[9] = 'x';  // the number's kind byte
  CHECK_FALSE(IsEncodedValues(bad));
}

}  // namespace
}  // namespace logtide
