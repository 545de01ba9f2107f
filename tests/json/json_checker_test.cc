// Whole JSON texts: validity of late lines, and the reason a refused line gives.
#include "json/json_checker.h"

#include <simdjson.h>

#include <catch2/catch.hpp>
#include <string>

namespace logtide {
namespace {

TEST_CASE("JsonChecker judges each text alone when one checker sees many") {
  JsonChecker checker;
  std::string big = "{\"a\":[1";
  for (int i = 0; i < 50000; ++i) big += ",1";
  big += "]}";
  CHECK(checker.IsValid(big));
  CHECK_FALSE(checker.IsValid("{\"a\":"));  // a prefix of the last text
  CHECK(checker.IsValid("{\"a\":1}"));
  CHECK_FALSE(checker.IsValid("{\"a\":1}}"));  // trailing bytes
  CHECK(checker.IsValid("[1,2]"));             // any JSON text, not only objects
  CHECK_FALSE(checker.IsValid("\"\xff\""));    // invalid UTF-8
  CHECK_FALSE(checker.IsValid(""));
  CHECK(checker.IsValid(big));
}

std::string Reason(const std::string& line) {
  simdjson::dom::parser parser;
  std::string copy;
  const Status s = DescribeBadLine(parser, &copy, line.data(), line.size());
  CHECK(s.bad_kind() == BadKind::kNotJson);
  return s.message();
}

TEST_CASE("a refused line says what it is instead of one JSON object") {
  CHECK_THAT(Reason("{\"a\":"), Catch::StartsWith("invalid JSON: "));
  CHECK(Reason("[1]") == "not a JSON object (an array)");
  CHECK(Reason("\"x\"") == "not a JSON object (a string)");
  CHECK(Reason("true") == "not a JSON object (a boolean)");
  CHECK(Reason("null") == "not a JSON object (null)");
  CHECK(Reason("99999999999999999999") == "not a JSON object (a number)");
}

}  // namespace
}  // namespace logtide
