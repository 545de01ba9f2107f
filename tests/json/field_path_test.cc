// Field paths: every written form, the canonical text and its round trip, output names, errors.
#include "json/field_path.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace logtide {
namespace {

std::string Canonical(const std::string& text) {
  FieldPath path;
  size_t at = 0;
  const Status s = ParseFieldPath(text, &path, &at);
  INFO(text << ": " << s.message());
  REQUIRE(s.ok());
  return FieldPathText(path);
}

std::string Error(const std::string& text) {
  FieldPath path;
  size_t at = 0;
  const Status s = ParseFieldPath(text, &path, &at);
  return s.ok() ? "ok" : std::to_string(at) + ": " + s.message();
}

TEST_CASE("field paths: written forms give one canonical text") {
  CHECK(Canonical("req.method") == "req.method");
  CHECK(Canonical(".req.method") == "req.method");
  CHECK(Canonical(" req . method ") == "req.method");
  CHECK(Canonical("user-agent") == "user-agent");
  CHECK(Canonical(".\"log.level\"") == "[\"log.level\"]");
  CHECK(Canonical(".[\"log.level\"]") == "[\"log.level\"]");
  CHECK(Canonical("[\"log.level\"]") == "[\"log.level\"]");
  CHECK(Canonical("http[\"req.bytes\"]") == "http[\"req.bytes\"]");
  CHECK(Canonical(".req[\"method\"]") == "req.method");  // a plain key, however written
  CHECK(Canonical("tags[0]") == "tags[0]");
  CHECK(Canonical(".tags[-1]") == "tags[-1]");
  CHECK(Canonical("a[0][1].b") == "a[0][1].b");
  CHECK(Canonical("a.[2]") == "a[2]");
  CHECK(Canonical("a[ -0 ]") == "a[0]");
  CHECK(Canonical("a[007]") == "a[7]");
}

TEST_CASE("field paths: keys that would be read otherwise are quoted") {
  // The path's syntax, the separators of flags and of the query's text, spaces at the ends,
  // a leading '$' (refused alone as a shell habit) and control characters.
  for (const char* key : {"a.b", "a[b", "a]b", "a,b", "n=1", "f(x)", " a", "a ", "$x", "a\nb",
                          "tab\tkey", "0.5"}) {
    FieldPath path = {PathSegment{key}};
    const std::string text = FieldPathText(path);
    INFO(key << " -> " << text);
    CHECK(text.front() == '[');
    FieldPath back;
    size_t at;
    REQUIRE(ParseFieldPath(text, &back, &at).ok());
    REQUIRE(back.size() == 1);
    CHECK(back[0].key == key);
    CHECK(FieldPathName(back) == key);  // the output field's name is the key itself
  }
  for (const char* key : {"a", "user-agent", "0", "a b", "é", "a$"}) {
    CHECK(FieldPathText(FieldPath{PathSegment{key}}) == key);
  }
}

TEST_CASE("field paths: canonical text round-trips") {
  const std::vector<FieldPath> paths = {
      {PathSegment{"a"}, PathSegment{"", 0, true}},
      {PathSegment{"a.b"}, PathSegment{"", -1, true}, PathSegment{"c d"}},
      {PathSegment{"x"}, PathSegment{"", INT64_MIN, true}, PathSegment{"", INT64_MAX, true}},
      {PathSegment{"\"quoted\\"}},  // addressable only in the text (the extractor refuses it)
      {PathSegment{"a"}, PathSegment{"$"}, PathSegment{"[0]"}},
  };
  for (const FieldPath& p : paths) {
    const std::string text = FieldPathText(p);
    FieldPath back;
    size_t at;
    INFO(text);
    REQUIRE(ParseFieldPath(text, &back, &at).ok());
    REQUIRE(back.size() == p.size());
    for (size_t i = 0; i < p.size(); ++i) {
      CHECK(back[i].is_index == p[i].is_index);
      CHECK(back[i].key == p[i].key);
      CHECK(back[i].index == p[i].index);
    }
    CHECK(FieldPathText(back) == text);
  }
  CHECK(FieldPathName(std::string("a[\"b.c\"][-1]")) == "a.b.c[-1]");
}

TEST_CASE("field paths: errors say where") {
  CHECK(Error("a..b") == "2: expected a field name after '.'");
  CHECK(Error("a.") == "2: expected a field name after '.'");
  CHECK(Error("[0].a") == "0: a path starts with a key: every line is an object, not an array");
  CHECK(Error("a[x]") == "2: expected an array index (0, 1, -1 for the last) or a quoted key "
                         "inside [ ]");
  CHECK(Error("a[99999999999999999999]") == "2: the array index is out of range");
  CHECK(Error("a[1") == "3: expected ']'");
  CHECK(Error(".\"a") == "1: the string has no closing '\"'");
  CHECK(Error(".\"a\\q\"") == "4: unknown escape \\q");
  CHECK(Error(".\"\"") == "3: a field name cannot be empty");
  CHECK(Error(".\"a\"b") == "4: expected '.' or '[' after a quoted key or an index");
  CHECK(Error("a\"b") == "0: a key holding '\"' or ']' must be quoted, as in .[\"a]b\"] (and "
                         "cannot hold '\"')");
  CHECK(Error("a.\xff") == "2: the key is not valid UTF-8, as every key of a JSON line is");
  CHECK(Error(".\"\\ud800\"") == "8: \\u escapes half of a surrogate pair");
  CHECK(Error(".\"\xff\"") == "2: the key is not valid UTF-8, as every key of a JSON line is");
}

// Quoted keys are JSON strings, decoded by json_text.h's one decoder; a control character
// written raw is taken as it is, as in an expression's string literals.
TEST_CASE("field paths: quoted keys are JSON strings") {
  CHECK(Canonical(".\"a\\u00e9\\\"b\"") == "[\"a\xC3\xA9\\\"b\"]");
  CHECK(Canonical(".\"\\ud83d\\ude00\"") == "\xF0\x9F\x98\x80");
  CHECK(Canonical(".[\"a\tb\"]") == "[\"a\\tb\"]");
  CHECK(Canonical(".[\"a\\tb\"]") == "[\"a\\tb\"]");
}

// In an expression the path ends where an identifier and the path's syntax do; the grammar
// and the messages are those of a path alone.
std::string InExpression(const std::string& text) {
  FieldPath path;
  size_t end = 0, at = 0;
  const Status s = ParseExprFieldPath(text, &path, &end, &at);
  if (!s.ok()) return std::to_string(at) + ": " + s.message();
  return FieldPathText(path) + " | " + text.substr(end);
}

TEST_CASE("field paths in an expression end where the path does") {
  CHECK(InExpression(".a.b == 1") == "a.b |  == 1");
  CHECK(InExpression("a.b-c") == "a.b | -c");
  CHECK(InExpression(".\"log.level\"[0].x)") == "[\"log.level\"][0].x | )");
  CHECK(InExpression(". a. [\"b\"] , 2") == "a.b |  , 2");
  CHECK(InExpression(".tags [0]") == "tags |  [0]");  // a space ends it: `x in [1]`
  CHECK(InExpression(".and.in") == "and.in | ");
  CHECK(InExpression(".a.") == "3: expected a field name after '.'");
  CHECK(InExpression(". == 1") == "2: expected a field name after '.'");
  CHECK(InExpression(".a[\"\"]") == "6: a field name cannot be empty");
}

std::string Normalized(const char* text) {
  std::string out;
  const Status s = NormalizeFieldPath("--by", text, &out);
  INFO(text << ": " << s.message());
  REQUIRE(s.ok());
  return out;
}

TEST_CASE("field paths as users write them: spaces, jq's leading dot; '$' gets a hint") {
  CHECK(Normalized("service") == "service");
  CHECK(Normalized(" host") == "host");
  CHECK(Normalized(".service") == "service");
  CHECK(Normalized(".req.method") == "req.method");
  CHECK(Normalized("req . method ") == "req.method");
  std::string out;
  CHECK_THAT(NormalizeFieldPath("--by", "$service", &out).message(),
             Catch::Contains("write --by service"));
  CHECK(NormalizeFieldPath("--by", "a..b", &out).message() ==
        "--by \"a..b\": expected a field name after '.' (at byte 3)");
  // The byte is counted in the text as written, leading spaces included.
  CHECK(NormalizeFieldPath("--by", " a..b", &out).message() ==
        "--by \" a..b\": expected a field name after '.' (at byte 4)");
  CHECK(NormalizeFieldPath("--by", " ", &out).message() == "--by: empty field name");
  CHECK(NormalizeFieldPath("--by", ".", &out).message() == "--by: empty field name");
}

}  // namespace
}  // namespace logtide
