#include "json/json_text.h"

#include <catch2/catch.hpp>

namespace logtide {
namespace {

std::string Str(std::string_view s) {
  std::string out;
  AppendJsonString(s, &out);
  return out;
}

TEST_CASE("strings are escaped; invalid UTF-8 becomes U+FFFD") {
  CHECK(Str("a\"b\\c") == R"("a\"b\\c")");
  CHECK(Str("\n\t\x01") == R"("\n\t\u0001")");
  CHECK(Str("caf\xC3\xA9") == "\"caf\xC3\xA9\"");
  CHECK(Str("x\xFFy") == "\"x\xEF\xBF\xBDy\"");
  CHECK(Str("\xC0\x80") == "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");  // overlong NUL
}

TEST_CASE("numbers: integers exactly, doubles shortest round-trip, non-finite as null") {
  std::string s;
  AppendInt128(static_cast<__int128>(INT64_MAX) * 4, &s);
  CHECK(s == "36893488147419103228");
  s.clear();
  AppendDouble(0.1, &s);
  CHECK(s == "0.1");
  s.clear();
  AppendDouble(1.0 / 3, &s);
  CHECK(s == "0.3333333333333333");
  s.clear();
  AppendDouble(1e300 * 1e300, &s);
  CHECK(s == "null");
}

std::string Written(const ValueRef& v) {
  std::string out;
  AppendJsonValue(v, &out);
  return out;
}

// Issue 28: an integral double beyond int64 was written as an integer of 20 digits that
// logtide, and any reader of 64-bit integers, refused.
TEST_CASE("integral numbers are integers only within int64, otherwise in exponent form (issue 28)") {
  CHECK(Written(ValueRef::Number(9007199254740992.0)) == "9007199254740992");  // 2^53
  CHECK(Written(ValueRef::Int(INT64_MAX)) == "9223372036854775807");
  CHECK(Written(ValueRef::Number(-9223372036854775808.0)) == "-9223372036854775808");
  CHECK(Written(ValueRef::Number(9223372036854775808.0)) == "9.223372036854776e+18");  // 2^63
  CHECK(Written(ValueRef::Number(18446744073709551616.0)) == "1.8446744073709552e+19");
  CHECK(Written(ValueRef::Number(-18446744073709551616.0)) == "-1.8446744073709552e+19");
  CHECK(Written(ValueRef::Number(1e19)) == "1e+19");
  CHECK(Written(ValueRef::Number(1e20)) == "1e+20");
  CHECK(Written(ValueRef::Number(123456789012345678901234.0)) == "1.2345678901234569e+23");
  // AppendDouble alone (avg, sums of doubles) follows the same rule.
  std::string s;
  AppendDouble(18446744073709551616.0, &s);
  CHECK(s == "1.8446744073709552e+19");
  s.clear();
  AppendDouble(-9223372036854775808.0, &s);
  CHECK(s == "-9223372036854775808");
  s.clear();
  AppendDouble(4611686018427387904.0, &s);  // 2^62: within int64, an integer
  CHECK(s == "4611686018427387904");
  s.clear();
  AppendDouble(1.7976931348623157e308, &s);
  CHECK(s == "1.7976931348623157e+308");
}

// The one reader of JSON strings written by hand (quoted keys of field paths, string literals
// of expressions): "ok: <decoded> | <rest>" or "<offset>: <message>".
std::string Decoded(const std::string& text) {
  std::string out;
  size_t end = 0, at = 0;
  const Status s = DecodeJsonString(text, &out, &end, &at);
  if (!s.ok()) return std::to_string(at) + ": " + s.message();
  return "ok: " + out + " | " + text.substr(end);
}

TEST_CASE("JSON strings: every escape, surrogate pairs, and where a bad one is") {
  CHECK(Decoded(R"("a\"\\\/\b\f\n\r\t" rest)") == "ok: a\"\\/\b\f\n\r\t |  rest");
  CHECK(Decoded(R"("\u0041\u00e9\u20ac\ud83d\ude00")") ==
        "ok: A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80 | ");
  CHECK(Decoded("\"\\u0000\"") == std::string("ok: \0 | ", 8));
  CHECK(Decoded("\"raw\ttab\"") == "ok: raw\ttab | ");  // taken as it is
  CHECK(Decoded("\"caf\xC3\xA9\"x") == "ok: caf\xC3\xA9 | x");
  CHECK(Decoded(R"("abc)") == "0: the string has no closing '\"'");
  CHECK(Decoded(R"("abc\")") == "0: the string has no closing '\"'");
  CHECK(Decoded(R"("a\q")") == "3: unknown escape \\q");
  CHECK(Decoded(R"("\u12")") == "3: \\u needs four hex digits");
  CHECK(Decoded(R"("\ud800")") == "7: \\u escapes half of a surrogate pair");
  CHECK(Decoded(R"("\ud800\u0041")") == "13: \\u escapes half of a surrogate pair");
  CHECK(Decoded(R"("\ude00")") == "7: \\u escapes half of a surrogate pair");
  CHECK(Decoded("\"a\xFF\"") == "2: not valid UTF-8");
}

TEST_CASE("UTF-8: sequences decode to their code points; bad ones are found") {
  char32_t cp = 0;
  CHECK(DecodeUtf8("A", &cp) == 1);
  CHECK(cp == U'A');
  CHECK(DecodeUtf8("\xE2\x82\xAC!", &cp) == 3);
  CHECK(cp == U'\u20AC');
  CHECK(DecodeUtf8("\xF0\x9F\x98\x80", &cp) == 4);
  CHECK(cp == U'\U0001F600');
  CHECK(DecodeUtf8("\x80", &cp) == 0);              // a stray continuation byte
  CHECK(DecodeUtf8("\xC0\x80", &cp) == 0);          // overlong
  CHECK(DecodeUtf8("\xED\xA0\x80", &cp) == 0);      // a surrogate
  CHECK(DecodeUtf8("\xF4\x90\x80\x80", &cp) == 0);  // past U+10FFFF
  CHECK(DecodeUtf8("\xE2\x82", &cp) == 0);          // cut short
  CHECK(FindInvalidUtf8("caf\xC3\xA9") == std::string_view::npos);
  CHECK(FindInvalidUtf8("ab\xE2\x82") == 2);
  CHECK(FindInvalidUtf8("\xC3\xA9\xFF") == 2);
}

}  // namespace
}  // namespace logtide
