// logfmt lines converted into JSON objects (issue 32): typing, quoting, escapes, bad lines.
#include "lineformat/logfmt.h"

#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "json/json_checker.h"

namespace logtide {
namespace {

// The object `line` converts to, or "BAD: reason".
std::string Json(std::string_view line) {
  JsonBuilder b;
  Status s = LogfmtToJson(line, KeySet(), &b);
  if (!s.ok()) return "BAD: " + s.message();
  return std::string(b.Finish());
}

TEST_CASE("logfmt: pairs become members, numbers numbers, the rest strings") {
  CHECK(Json("ts=2024-03-31T00:00:01Z level=info msg=\"a b\" dur=12.5") ==
        R"({"ts":"2024-03-31T00:00:01Z","level":"info","msg":"a b","dur":12.5})");
  CHECK(Json("n=-0 e=1e3 big=123456789012345678901234") ==
        R"({"n":-0,"e":1e3,"big":123456789012345678901234})");
  // Not JSON numbers: strings as written.
  CHECK(Json("a=012 b=+1 c=.5 d=1. e=0x1F f=NaN g=1e") ==
        R"({"a":"012","b":"+1","c":".5","d":"1.","e":"0x1F","f":"NaN","g":"1e"})");
  CHECK(Json("ok=true none=null") == R"({"ok":"true","none":"null"})");
}

TEST_CASE("logfmt: a quoted value is a string, a bare key true, key= the empty string") {
  CHECK(Json("code=\"404\"") == R"({"code":"404"})");
  CHECK(Json("debug level=info") == R"({"debug":true,"level":"info"})");
  CHECK(Json("a= b=\"\"") == R"({"a":"","b":""})");
  CHECK(Json("trailing=") == R"({"trailing":""})");
}

TEST_CASE("logfmt: blanks around and between pairs") {
  CHECK(Json("  a=1 \t b=2  ") == R"({"a":1,"b":2})");
  CHECK(Json("") == "{}");
  CHECK(Json("   ") == "{}");
}

TEST_CASE("logfmt: JSON's escapes in quoted values are kept, a lone backslash is one") {
  CHECK(Json(R"(msg="say \"hi\"")") == R"({"msg":"say \"hi\""})");
  CHECK(Json(R"(msg="a\nb\tc\\d\/e\u00e9")") == R"({"msg":"a\nb\tc\\d\/e\u00e9"})");
  CHECK(Json(R"(path="C:\dir\x")") == R"({"path":"C:\\dir\\x"})");
  CHECK(Json(R"(u="\u12")") == R"({"u":"\\u12"})");  // not 4 hex digits
  CHECK(Json("tab=\"a\tb\"") == R"({"tab":"a\tb"})");  // a raw tab inside quotes
}

TEST_CASE("logfmt: a surrogate pair is one character, half a pair a bad line") {
  CHECK(Json(R"(e="\ud83d\ude00!")") == R"({"e":"\ud83d\ude00!"})");
  CHECK(Json(R"(e="\uDDD4x")") ==
        "BAD: the quoted value of key \"e\" has half a UTF-16 surrogate pair, \\uDDD4, at byte 4");
  CHECK(Json(R"(k=1 e="a\ud83d")") ==
        "BAD: the quoted value of key \"e\" has half a UTF-16 surrogate pair, \\ud83d, at byte 9");
  CHECK(Json(R"(e="\ud83d\u0041")").starts_with("BAD: the quoted value of key \"e\" has half"));
  CHECK(Json(R"(e="\ud83d\ud83d")").starts_with("BAD: the quoted value of key \"e\" has half"));
  // A value the query does not read is still checked: the line is bad the same way.
  JsonBuilder b;
  const Status s = LogfmtToJson(R"(ts=1 e="\uDDD4x")", KeySet({"ts"}), &b);
  CHECK(s.message() ==
        "the quoted value of key \"e\" has half a UTF-16 surrogate pair, \\uDDD4, at byte 9");
  CHECK(LogfmtToJson(R"(ts=1 e="\ud83d\ude00")", KeySet({"ts"}), &b).ok());
}

TEST_CASE("logfmt: bare values keep quotes and equals signs inside them") {
  CHECK(Json("q=a\"b eq=x=y") == R"({"q":"a\"b","eq":"x=y"})");
  CHECK(Json(R"(k\x=1)") == R"({"k\\x":1})");
  CHECK(Json("req.method=GET") == R"({"req.method":"GET"})");
}

TEST_CASE("logfmt: UTF-8 passes as it is") {
  CHECK(Json("city=Zürich msg=\"日本 語\"") == "{\"city\":\"Zürich\",\"msg\":\"日本 語\"}");
}

TEST_CASE("logfmt: what breaks the grammar is a bad line saying why") {
  CHECK(Json("msg=\"open") == "BAD: the quoted value of key \"msg\" has no closing double quote");
  CHECK(Json("msg=\"a\"b c=1") ==
        "BAD: text after the closing double quote of key \"msg\"'s value at byte 8 (a space "
        "must separate pairs)");
  CHECK(Json("=x") == "BAD: an empty key: '=' with no key before it at byte 1");
  CHECK(Json("a=1 \"k\"=2") == "BAD: logfmt keys are not quoted: a key starts with '\"' at byte 5");
  CHECK(Json("ke\"y=1") ==
        "BAD: a double quote inside the key \"ke\" at byte 3: logfmt keys are not quoted");
  CHECK(Json(R"({"ts":1})") ==
        "BAD: a logfmt line does not start with '{': the line looks like JSON (--input-format "
        "ndjson reads it)");
}

TEST_CASE("logfmt: a long line converts whole") {
  std::string line = "ts=1 msg=\"";
  for (int i = 0; i < 100000; ++i) line += "x\\\"";
  line += "\"";
  const std::string j = Json(line);
  // ts=1 msg="BODY" (11 bytes and BODY) is {"ts":1,"msg":"BODY"} (17 and BODY).
  REQUIRE(j.size() == line.size() + 6);
  CHECK(j == "{\"ts\":1,\"msg\":\"" + line.substr(10, line.size() - 11) + "\"}");
}

TEST_CASE("logfmt: the buffer is reused once grown") {
  JsonBuilder b;
  REQUIRE(LogfmtToJson("a=1 b=\"some longer text here\"", KeySet(), &b).ok());
  const char* first = b.Finish().data();
  for (int i = 0; i < 100; ++i) {
    REQUIRE(LogfmtToJson("a=1 b=2", KeySet(), &b).ok());
    CHECK(b.Finish().data() == first);
  }
  CHECK(b.capacity() >= b.Finish().size() + kJsonPadding);
}

TEST_CASE("logfmt: whatever converts is valid JSON (random lines of ASCII)") {
  std::mt19937 rng(32);
  const std::string alphabet = "ab= \t\"\\nu0{\x01,.-1e";
  JsonChecker checker;
  int converted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string line;
    const int n = static_cast<int>(rng() % 24);
    for (int k = 0; k < n; ++k) line += alphabet[rng() % alphabet.size()];
    JsonBuilder b;
    if (!LogfmtToJson(line, KeySet(), &b).ok()) continue;
    ++converted;
    const std::string_view j = b.Finish();
    INFO(line);
    REQUIRE(checker.IsValid(j));
  }
  CHECK(converted > 1000);
}

}  // namespace
}  // namespace logtide
