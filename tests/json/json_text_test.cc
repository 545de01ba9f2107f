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

}  // namespace
}  // namespace logtide
