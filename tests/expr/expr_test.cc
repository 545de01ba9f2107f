// The expression language: precedence, errors with positions, JSON typing, SQL's null rules,
// every function, regular expressions, and the canonical text.
#include "expr/expr.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "json/field_path.h"
#include "json/json_text.h"
#include "util/quote.h"

namespace logtide {
namespace {

// Evaluates `text` over an event given as field -> value, and renders the result as JSON.
std::string Eval(const std::string& text, const std::map<std::string, ValueRef>& event = {},
                 uint64_t* mismatches = nullptr) {
  Expr e;
  const Status s = Expr::Parse(text, &e);
  INFO(text << ": " << s.message());
  REQUIRE(s.ok());
  std::vector<ValueRef> values;
  for (const std::string& p : e.paths()) {
    auto it = event.find(p);
    values.push_back(it == event.end() ? ValueRef::Null() : it->second);
  }
  const ValueRef r = e.Eval(values.data());
  if (mismatches != nullptr) *mismatches = e.type_errors();
  std::string out;
  if (r.type == ValueType::kString) {
    AppendJsonString(r.s, &out);
  } else {
    AppendJsonValue(r, &out);
  }
  return out;
}

std::string Error(const std::string& text) {
  Expr e;
  const Status s = Expr::Parse(text, &e);
  return s.ok() ? "ok" : s.message();
}

std::string Canonical(const std::string& text) {
  Expr e;
  REQUIRE(Expr::Parse(text, &e).ok());
  return e.Canonical();
}

const ValueRef kNull = ValueRef::Null();
ValueRef I(int64_t i) { return ValueRef::Int(i); }
ValueRef D(double d) { return ValueRef::Number(d); }
ValueRef S(const char* s) { return ValueRef::String(s); }

TEST_CASE("expr: precedence and associativity") {
  CHECK(Canonical("a + b * c") == "(.a + (.b * .c))");
  CHECK(Canonical("a - b - c") == "((.a - .b) - .c)");
  CHECK(Canonical("a or b and not c") == "(.a or (.b and (not .c)))");
  CHECK(Canonical("not a == 1") == "(not (.a == 1))");
  CHECK(Canonical("-a * 2") == "((-.a) * 2)");
  CHECK(Canonical("(a + b) * c") == "((.a + .b) * .c)");
  CHECK(Canonical("status in [500, 503] and path != \"/x\"") ==
        "((.status in [500,503]) and (.path != \"/x\"))");
  CHECK(Eval("1 + 2 * 3") == "7");
  CHECK(Eval("(1 + 2) * 3") == "9");
  CHECK(Eval("10 - 4 - 3") == "3");
  CHECK(Eval("2 * 3 % 4") == "2");
}

TEST_CASE("expr: paths as jq writes them") {
  CHECK(Canonical(".a.b") == ".a.b");
  CHECK(Canonical("a.b") == ".a.b");
  CHECK(Canonical(".\"user-agent\"") == ".\"user-agent\"");
  CHECK(Canonical(".[\"user agent\"]") == ".\"user agent\"");
  CHECK(Canonical(".req[\"method\"]") == ".req.method");
  CHECK(Canonical(".\"and\" == 1") == "(.\"and\" == 1)");
  // Keys holding dots, and array elements (negative: from the end).
  CHECK(Canonical(".\"log.level\"") == ".\"log.level\"");
  CHECK(Canonical(".[\"log.level\"]") == ".\"log.level\"");
  CHECK(Canonical(".tags[0]") == ".tags[0]");
  CHECK(Canonical("tags[-1]") == ".tags[-1]");
  CHECK(Canonical(".a[0][1].b") == ".a[0][1].b");
  CHECK(Canonical(".a.[2]") == ".a[2]");
  {
    Expr p;
    REQUIRE(Expr::Parse(".\"log.level\" == tags[-1] and .log.level == .a[0][1].b", &p).ok());
    CHECK(p.paths() ==
          std::vector<std::string>{"[\"log.level\"]", "tags[-1]", "log.level", "a[0][1].b"});
  }
  Expr e;
  REQUIRE(Expr::Parse("a.b == 1 or a.b == 2 or c > 0", &e).ok());
  CHECK(e.paths() == std::vector<std::string>{"a.b", "c"});
  CHECK(Eval("req.method == \"GET\"", {{"req.method", S("GET")}}) == "true");
}

TEST_CASE("expr: errors point at the position") {
  CHECK(Error("status >== 5") == "position 10: expected an operand");
  CHECK(Error("status >") == "position 9: expected an operand");
  CHECK(Error("status = 5") == "position 8: compare with ==, not =");
  CHECK(Error("(a == 1") == "position 8: expected ')'");
  CHECK(Error("a == \"x") == "position 6: the string has no closing '\"'");
  CHECK(Error("a < b < c") == "position 7: comparisons do not chain: write a < b and b < c");
  CHECK(Error("frob(a)") ==
        "position 1: unknown function \"frob\" (functions: exists, startswith, endswith, "
        "contains, matches, floor, ceil, round, abs, lower, upper, len, substr, regexp_replace, "
        "regexp_extract, if, coalesce, split_part, concat)");
  CHECK(Error("floor(a, b)") == "position 1: floor takes 1 argument");
  CHECK(Error("substr(a)") == "position 1: substr takes 2 or 3 arguments");
  CHECK(Error("matches(a, b)") ==
        "position 12: matches takes its pattern as a string literal, as in matches(.path, "
        "\"^/api/\")");
  CHECK_THAT(Error("matches(a, \"(\")"), Catch::StartsWith("position 12: invalid regular expression"));
  CHECK(Error("exists(1)") == "position 8: exists takes a field path, as in exists(.user)");
  CHECK(Error("a in [b]") ==
        "position 7: the list after in holds literals only (numbers, strings, true, false, null)");
  CHECK(Error("a in 1") == "position 6: expected '[' after in, as in status in [500, 503]");
  CHECK(Error(".tags[x] == 1") ==
        "position 7: expected an array index (0, 1, -1 for the last) or a quoted key inside [ ]");
  CHECK(Error(".tags[1 == 1") == "position 9: expected ']'");
  CHECK(Error(".[0] == 1") ==
        "position 2: a path starts with a key: every line is an object, not an array");
  CHECK(Error(".tags[99999999999999999999] == 1") == "position 7: the array index is out of range");
  CHECK(Error("") == "position 1: expected an operand");
  CHECK(Error("a and") == "position 6: expected an operand");
  CHECK(Error("a b") == "position 3: unexpected \"b\"");
  CHECK(Error(". == 1") == "position 3: expected a field name after '.'");
  // Nesting is bounded: no stack overflow from a hostile expression.
  CHECK(Error(std::string(100000, '(') + "1" + std::string(100000, ')')) ==
        "position 201: nested more than 200 deep");
  std::string chain = "1";
  for (int i = 0; i < 50000; ++i) chain += " + 1";
  CHECK(Error(chain) == "the expression is 50001 operations deep, more than 800: split it up");
  CHECK_THAT(Error(std::string(100000, '-') + "1"), Catch::EndsWith("nested more than 200 deep"));
  CHECK_THAT(Error(std::string(50000, 'n') + "ot a"), Catch::StartsWith("position"));
  CHECK(Eval(std::string(60, '(') + "1 + 2" + std::string(60, ')')) == "3");
  CHECK(Error("a == \"\xff\"") == "position 7: not valid UTF-8");
  CHECK(Error("a == \"\\ud800\"") == "position 13: \\u escapes half of a surrogate pair");
  CHECK(Eval("\"\\ud83d\\ude00\" == s", {{"s", S("\xF0\x9F\x98\x80")}}) == "true");
}

// Issue 27: expressions parsed field paths with a grammar of their own, and said other things
// than the flags for the same mistake. Now one parser reads both, so a path reads the same in
// --by (and --agg, --time) and in an expression, and a mistake in it gets one message at one
// byte: `--by "P": MESSAGE (at byte N)` (P's quotes and backslashes escaped) and `position N: MESSAGE`.
TEST_CASE("a bad field path gets one message, from a flag or in an expression (issue 27)") {
  const std::pair<std::string, std::string> kCases[] = {
      {".tags[x]", "7: expected an array index (0, 1, -1 for the last) or a quoted key inside [ ]"},
      {".tags[99999999999999999999]", "7: the array index is out of range"},
      {".tags[1.5]", "8: expected ']'"},
      {".[0].a", "2: a path starts with a key: every line is an object, not an array"},
      {".a..b", "4: expected a field name after '.'"},
      {".\"log.level", "2: the string has no closing '\"'"},
      {".\"a\\q\"", "5: unknown escape \\q"},
      {".\"\\u12\"", "5: \\u needs four hex digits"},
      {".\"\\ud800\"", "9: \\u escapes half of a surrogate pair"},
      {".\"\"", "4: a field name cannot be empty"},
  };
  for (const auto& [path, expected] : kCases) {
    INFO(path);
    const size_t colon = expected.find(": ");
    const std::string at = expected.substr(0, colon), message = expected.substr(colon + 2);
    std::string normal;
    CHECK(NormalizeFieldPath("--by", path, &normal).message() ==
          "--by " + QuoteForMessage(path, /*backslash_quotes=*/true) + ": " + message +
              " (at byte " + at + ")");
    CHECK(Error(path + " == 1") == "position " + at + ": " + message);
    CHECK(Error("exists(" + path + ")") ==
          "position " + std::to_string(std::stoi(at) + 7) + ": " + message);
  }
}

// The path in the message is in quotes with its own quotes and backslashes escaped, so the
// message has one quoted text (it had `--by "."a\q"": ...`).
TEST_CASE("a path with quotes is quoted once in a flag's message") {
  std::string normal;
  CHECK(NormalizeFieldPath("--by", ".\"a\\q\"", &normal).message() ==
        R"(--by ".\"a\\q\"": unknown escape \q (at byte 5))");
}

TEST_CASE("expr: comparisons type as JSON") {
  CHECK(Eval("s == 200", {{"s", I(200)}}) == "true");
  CHECK(Eval("s == 200.0", {{"s", I(200)}}) == "true");
  CHECK(Eval("s == 2e2", {{"s", I(200)}}) == "true");
  CHECK(Eval("s < 200.5", {{"s", I(200)}}) == "true");
  CHECK(Eval("s == \"200\"", {{"s", I(200)}}) == "false");  // different types: not equal
  CHECK(Eval("s != \"200\"", {{"s", I(200)}}) == "true");
  CHECK(Eval("s < \"300\"", {{"s", I(200)}}) == "false");   // and not ordered
  CHECK(Eval("s >= \"300\"", {{"s", I(200)}}) == "false");
  CHECK(Eval("p < \"b\"", {{"p", S("abc")}}) == "true");    // strings by bytes
  CHECK(Eval("p > \"B\"", {{"p", S("a")}}) == "true");
  CHECK(Eval("ok == true", {{"ok", ValueRef::Bool(true)}}) == "true");
  CHECK(Eval("ok < true", {{"ok", ValueRef::Bool(false)}}) == "false");  // booleans: = only
  CHECK(Eval("o == o", {{"o", ValueRef::Raw("{\"a\":1}")}}) == "true");
  CHECK(Eval("s in [404, \"500\", 500.0]", {{"s", I(500)}}) == "true");
  CHECK(Eval("s in [404, \"500\"]", {{"s", I(500)}}) == "false");
  CHECK(Eval("s in []", {{"s", I(500)}}) == "false");
}

// Test() has its own path for a field compared with a number (the common filter): it must agree
// with Eval() for every operator, either side, and every kind of value.
TEST_CASE("expr: Test of field against number agrees with Eval") {
  const std::vector<ValueRef> values = {
      I(499), I(500), I(501), D(499.5), D(500.0), D(1e300), I(INT64_MAX), I(INT64_MIN),
      S("500"), ValueRef::Bool(true), ValueRef::Raw("[500]"), kNull};
  for (const char* op : {"==", "!=", "<", "<=", ">", ">="}) {
    for (const char* number : {"500", "500.0", "499.5", "9223372036854775807", "-1e19"}) {
      for (const bool left : {false, true}) {
        const std::string text = left ? fmt::format("{} {} s", number, op)
                                      : fmt::format("s {} {}", op, number);
        Expr e;
        REQUIRE(Expr::Parse(text, &e).ok());
        for (const ValueRef& v : values) {
          std::string shown;
          AppendJsonValue(v, &shown);
          INFO(text << " with s = " << shown);
          CHECK(e.Test(&v) == (e.Eval(&v).type == ValueType::kTrue));
        }
      }
    }
  }
  // And a few by hand, to be sure both are not wrong alike.
  Expr e;
  REQUIRE(Expr::Parse("500 <= s", &e).ok());
  const ValueRef hi = I(501), lo = D(499.9), text = S("600");
  CHECK(e.Test(&hi));
  CHECK_FALSE(e.Test(&lo));
  CHECK_FALSE(e.Test(&text));
  REQUIRE(Expr::Parse("s != 5", &e).ok());
  CHECK(e.Test(&text));
  CHECK_FALSE(e.Test(&kNull));
}

TEST_CASE("expr: null is unknown, as in SQL") {
  CHECK(Eval("missing == 1") == "null");
  CHECK(Eval("missing != 1") == "null");
  CHECK(Eval("missing == null") == "null");
  CHECK(Eval("missing in [1, null]") == "null");
  CHECK(Eval("not missing") == "null");
  CHECK(Eval("missing + 1") == "null");
  CHECK(Eval("lower(missing)") == "null");
  CHECK(Eval("exists(missing)") == "false");
  CHECK(Eval("exists(s)", {{"s", I(0)}}) == "true");
  // Kleene: false and unknown is false; true or unknown is true; the rest unknown.
  CHECK(Eval("false and missing == 1") == "false");
  CHECK(Eval("missing == 1 and false") == "false");
  CHECK(Eval("true and missing == 1") == "null");
  CHECK(Eval("true or missing == 1") == "true");
  CHECK(Eval("missing == 1 or true") == "true");
  CHECK(Eval("false or missing == 1") == "null");
  CHECK(Eval("not (missing == 1) or true") == "true");
}

TEST_CASE("expr: wrong types give null and are counted") {
  uint64_t m = 0;
  CHECK(Eval("s + 1", {{"s", S("x")}}, &m) == "null");
  CHECK(m == 1);
  CHECK(Eval("s and true", {{"s", I(1)}}, &m) == "null");
  CHECK(m == 1);
  CHECK(Eval("not s", {{"s", S("x")}}, &m) == "null");
  CHECK(m == 1);
  CHECK(Eval("lower(s)", {{"s", I(1)}}, &m) == "null");
  CHECK(m == 1);
  CHECK(Eval("1 / 0", {}, &m) == "null");
  CHECK(m == 1);
  CHECK(Eval("5 % 0", {}, &m) == "null");
  CHECK(m == 1);
  CHECK(Eval("s == \"x\"", {{"s", I(1)}}, &m) == "false");  // a comparison is no mismatch
  CHECK(m == 0);
}

TEST_CASE("expr: arithmetic keeps integers exact and falls back to doubles") {
  CHECK(Eval("s / 100", {{"s", I(503)}}) == "5.03");
  CHECK(Eval("s / 100", {{"s", I(500)}}) == "5");
  CHECK(Eval("floor(s / 100)", {{"s", I(503)}}) == "5");
  CHECK(Eval("ceil(s / 100)", {{"s", I(503)}}) == "6");
  CHECK(Eval("round(2.5)") == "3");
  CHECK(Eval("round(-2.5)") == "-3");
  CHECK(Eval("abs(-7)") == "7");
  CHECK(Eval("abs(-7.5)") == "7.5");
  CHECK(Eval("-7 % 3") == "-1");
  CHECK(Eval("7.5 % 2") == "1.5");
  CHECK(Eval("9223372036854775807 + 1") == "9.223372036854776e+18");  // past int64: a double
  CHECK(Eval("-9223372036854775807 - 1") == "-9223372036854775808");
  CHECK(Eval("0.1 + 0.2") == "0.30000000000000004");
  CHECK(Eval("2 * 3.5") == "7");
  CHECK(Eval("-s", {{"s", D(1.5)}}) == "-1.5");
}

TEST_CASE("expr: string functions") {
  const std::map<std::string, ValueRef> ev = {{"p", S("/api/Users/42")}, {"u", S("h\xC3\xA9llo")}};
  CHECK(Eval("startswith(p, \"/api/\")", ev) == "true");
  CHECK(Eval("startswith(p, \"/web/\")", ev) == "false");
  CHECK(Eval("endswith(p, \"/42\")", ev) == "true");
  CHECK(Eval("contains(p, \"Users\")", ev) == "true");
  CHECK(Eval("contains(p, \"users\")", ev) == "false");
  CHECK(Eval("lower(p)", ev) == "\"/api/users/42\"");
  CHECK(Eval("upper(p)", ev) == "\"/API/USERS/42\"");
  CHECK(Eval("len(p)", ev) == "13");
  CHECK(Eval("len(u)", ev) == "5");  // code points, as jq's length
  CHECK(Eval("substr(u, 1, 2)", ev) == "\"\xC3\xA9l\"");
  CHECK(Eval("substr(p, -2)", ev) == "\"42\"");
  CHECK(Eval("substr(p, 5)", ev) == "\"Users/42\"");
  CHECK(Eval("substr(p, 100)", ev) == "\"\"");
  CHECK(Eval("lower(p) == \"/api/users/42\" and upper(p) == \"/API/USERS/42\"", ev) == "true");
  CHECK(Eval("\"a\\\"b\\u00e9\" == s", {{"s", S("a\"b\xC3\xA9")}}) == "true");
}

TEST_CASE("expr: matches uses RE2, in linear time") {
  CHECK(Eval("matches(p, \"^/api/v[0-9]+/\")", {{"p", S("/api/v2/users")}}) == "true");
  CHECK(Eval("matches(p, \"^/api/v[0-9]+/\")", {{"p", S("/web/v2/")}}) == "false");
  CHECK(Eval("matches(p, \"users\")", {{"p", S("/api/users/1")}}) == "true");  // anywhere
  CHECK(Eval("matches(p, \"x\")") == "null");
  // A pattern that backtracking engines take exponential time over: RE2 answers at once.
  const std::string hostile(5000, 'a');
  CHECK(Eval("matches(p, \"(a+)+$\")", {{"p", S(hostile.c_str())}}) == "true");
  CHECK(Eval("matches(p, \"^(a|aa)+b\")", {{"p", S(hostile.c_str())}}) == "false");
}

TEST_CASE("expr: canonical text") {
  CHECK(Canonical("status>=500") == "(.status >= 500)");
  CHECK(Canonical("  status >= 5e2 ") == "(.status >= 500)");
  CHECK(Canonical(".status >= 500.0") == "(.status >= 500)");
  CHECK(Canonical("x == 0.5") == "(.x == 0.5)");
  CHECK(Canonical("lower(p) == \"a\\u0041\"") == "(lower(.p) == \"aA\")");
  CHECK(Canonical("s in [1, -2, \"x\", null, true]") == "(.s in [1,-2,\"x\",null,true])");
  CHECK(Canonical("substr(p, 0, 3)") == "substr(.p,0,3)");
  CHECK(Canonical("matches(p, \"^a\")") == "matches(.p,\"^a\")");
}

}  // namespace
}  // namespace logtide

namespace logtide {
namespace {

// Issue 32: the functions that make keys out of real fields.
TEST_CASE("expr: regexp_replace replaces every match, RE2's rewrite syntax") {
  const std::map<std::string, ValueRef> ev = {{"p", S("/api/users/123/orders/7")}};
  CHECK(Eval("regexp_replace(p, \"[0-9]+\", \":id\")", ev) == "\"/api/users/:id/orders/:id\"");
  CHECK(Eval("regexp_replace(p, \"^/api\", \"\")", ev) == "\"/users/123/orders/7\"");
  CHECK(Eval("regexp_replace(p, \"/([a-z]+)/[0-9]+\", \"/\\\\1\")", ev) == "\"/api/users/orders\"");
  CHECK(Eval("regexp_replace(p, \"x\", \"y\")", ev) == "\"/api/users/123/orders/7\"");
  CHECK(Eval("regexp_replace(p, \"[0-9]+\", \"<\\\\0>\")", ev) == "\"/api/users/<123>/orders/<7>\"");
  CHECK(Eval("regexp_replace(p, \"\\\\\\\\\", \"/\")", {{"p", S("a\\b")}}) == "\"a/b\"");
  // Empty matches: one at each position, but none right after a match (RE2, DuckDB).
  CHECK(Eval("regexp_replace(p, \"x*\", \"-\")", {{"p", S("abc")}}) == "\"-a-b-c-\"");
  CHECK(Eval("regexp_replace(p, \"x*\", \"-\")", {{"p", S("abxd")}}) == "\"-a-b-d-\"");
  CHECK(Eval("regexp_replace(p, \"\", \"-\")", {{"p", S("")}}) == "\"-\"");
  // An empty match steps over a whole UTF-8 character, never into one.
  CHECK(Eval("regexp_replace(p, \"\", \"-\")", {{"p", S("\xC3\xA9")}}) == "\"-\xC3\xA9-\"");
  CHECK(Eval("regexp_replace(p, \".\", \"x\")", {{"p", S("\xC3\xA9t\xC3\xA9")}}) == "\"xxx\"");
  uint64_t m = 0;
  CHECK(Eval("regexp_replace(p, \"1\", \"2\")", {{"p", I(1)}}, &m) == "null");
  CHECK(m == 1);
  CHECK(Eval("regexp_replace(missing, \"1\", \"2\")", {}, &m) == "null");
  CHECK(m == 0);
  // The same node reused across events keeps giving the right bytes.
  Expr e;
  REQUIRE(Expr::Parse("regexp_replace(p, \"[0-9]+\", \":id\")", &e).ok());
  for (const char* in : {"/a/1234567890/b", "/b/2", "", "/c/33/44"}) {
    const ValueRef v = S(in);
    const ValueRef r = e.Eval(&v);
    std::string want = in;
    if (want == "/a/1234567890/b") want = "/a/:id/b";
    if (want == "/b/2") want = "/b/:id";
    if (want == "/c/33/44") want = "/c/:id/:id";
    CHECK(std::string(r.s) == want);
  }
}

TEST_CASE("expr: regexp_extract gives the first match or a group of it, null without one") {
  const std::map<std::string, ValueRef> ev = {{"p", S("/api/v2/users/42")}};
  CHECK(Eval("regexp_extract(p, \"[0-9]+\")", ev) == "\"2\"");
  CHECK(Eval("regexp_extract(p, \"/users/([0-9]+)\", 1)", ev) == "\"42\"");
  CHECK(Eval("regexp_extract(p, \"/(v)([0-9])\", 2)", ev) == "\"2\"");
  CHECK(Eval("regexp_extract(p, \"/(v)([0-9])\", 0)", ev) == "\"/v2\"");
  CHECK(Eval("regexp_extract(p, \"^/web\")", ev) == "null");  // no match: null, not counted
  CHECK(Eval("regexp_extract(p, \"x*\")", ev) == "\"\"");      // an empty match
  CHECK(Eval("regexp_extract(p, \"(x)|api\", 1)", ev) == "\"\"");  // a group that took no part
  uint64_t m = 0;
  CHECK(Eval("regexp_extract(p, \"[0-9]+\")", {{"p", ValueRef::Bool(true)}}, &m) == "null");
  CHECK(m == 1);
  CHECK(Eval("regexp_extract(p, \"[0-9]+\")", {}, &m) == "null");
  CHECK(m == 0);
}

TEST_CASE("expr: a pattern RE2 refuses is an error naming it and RE2's reason") {
  CHECK(Error("regexp_replace(p, \"(\", \"x\")") ==
        "position 19: invalid regular expression \"(\": missing ): ( (RE2 syntax: "
        "https://github.com/google/re2/wiki/Syntax)");
  CHECK(Error("regexp_extract(p, \"a(?=b)\")") ==
        "position 19: invalid regular expression \"a(?=b)\": invalid perl operator: (?= (RE2 "
        "syntax: https://github.com/google/re2/wiki/Syntax)");
  CHECK(Error("matches(p, \"[a\")") ==
        "position 12: invalid regular expression \"[a\": missing ]: [a (RE2 syntax: "
        "https://github.com/google/re2/wiki/Syntax)");
  CHECK(Error("regexp_replace(p, q, \"x\")") ==
        "position 19: regexp_replace takes its pattern as a string literal, as in "
        "regexp_replace(.path, \"^/api/\", \"\")");
  CHECK(Error("regexp_replace(p, \"a\", q)") ==
        "position 24: regexp_replace takes its replacement as a string literal, as in "
        "regexp_replace(.path, \"[0-9]+\", \":id\")");
  CHECK(Error("regexp_replace(p, \"(a)\", \"\\\\2\")") ==
        "position 26: the replacement of regexp_replace: Rewrite schema requests 2 matches, but "
        "the regexp only has 1 parenthesized subexpressions (\\0 is the match, \\1 to \\9 its "
        "groups, \\\\ a backslash)");
  CHECK(Error("regexp_extract(p, \"(a)\", 2)") ==
        "position 26: regexp_extract: group 2 of a pattern with 1 group (0 is the whole match)");
  CHECK(Error("regexp_extract(p, \"a\", -1)") ==
        "position 24: regexp_extract: group -1 of a pattern with 0 groups (0 is the whole match)");
  CHECK(Error("regexp_extract(p, \"(a)\", n)") ==
        "position 26: the group of regexp_extract is an integer literal");
  CHECK(Error("regexp_replace(p, \"a\")") == "position 1: regexp_replace takes 3 arguments");
}

TEST_CASE("expr: if takes a when c is true, b when false or null") {
  CHECK(Eval("if(s >= 500, \"error\", \"ok\")", {{"s", I(503)}}) == "\"error\"");
  CHECK(Eval("if(s >= 500, \"error\", \"ok\")", {{"s", I(200)}}) == "\"ok\"");
  CHECK(Eval("if(s >= 500, \"error\", \"ok\")") == "\"ok\"");  // null: as --where, not true
  CHECK(Eval("if(ok, 1, \"x\")", {{"ok", ValueRef::Bool(true)}}) == "1");  // branches of any type
  CHECK(Eval("if(ok, missing, 2)", {{"ok", ValueRef::Bool(true)}}) == "null");
  uint64_t m = 0;
  CHECK(Eval("if(s, 1, 2)", {{"s", I(1)}}, &m) == "null");  // not a boolean: counted
  CHECK(m == 1);
  // Only the branch taken is evaluated (its mismatches only are counted).
  CHECK(Eval("if(true, 1, s + 1)", {{"s", S("x")}}, &m) == "1");
  CHECK(m == 0);
  CHECK(Canonical("if(a==1,\"x\",b)") == "if((.a == 1),\"x\",.b)");
}

TEST_CASE("expr: coalesce gives the first operand that is not null") {
  CHECK(Eval("coalesce(u, v, \"anon\")", {{"v", S("bob")}}) == "\"bob\"");
  CHECK(Eval("coalesce(u, v, \"anon\")") == "\"anon\"");
  CHECK(Eval("coalesce(u, v)", {{"u", I(0)}, {"v", S("bob")}}) == "0");  // 0 and "" are values
  CHECK(Eval("coalesce(u, v)", {{"u", S("")}, {"v", S("bob")}}) == "\"\"");
  CHECK(Eval("coalesce(u)") == "null");
  CHECK(Eval("coalesce(u, 1 / 0, 2)") == "2");  // a mismatch is null, and counted
  CHECK(Error("coalesce()") == "position 1: coalesce takes at least 1 argument");
}

TEST_CASE("expr: split_part counts fields from 1, or from -1 for the last") {
  const std::map<std::string, ValueRef> ev = {{"p", S("/api/users/42")}, {"sep", S("/")}};
  CHECK(Eval("split_part(p, \"/\", 1)", ev) == "\"\"");  // before the first separator
  CHECK(Eval("split_part(p, \"/\", 2)", ev) == "\"api\"");
  CHECK(Eval("split_part(p, sep, 4)", ev) == "\"42\"");
  CHECK(Eval("split_part(p, \"/\", 5)", ev) == "\"\"");  // past the end: "", as Postgres
  CHECK(Eval("split_part(p, \"/\", -1)", ev) == "\"42\"");
  CHECK(Eval("split_part(p, \"/\", -4)", ev) == "\"\"");
  CHECK(Eval("split_part(p, \"/\", -5)", ev) == "\"\"");
  CHECK(Eval("split_part(p, \"/\", 100000000000)", ev) == "\"\"");
  CHECK(Eval("split_part(p, \"/api/\", 2)", ev) == "\"users/42\"");  // a separator of any length
  CHECK(Eval("split_part(p, \"aa\", 2)", {{"p", S("aaa")}}) == "\"a\"");  // left to right
  CHECK(Eval("split_part(p, \"aa\", -1)", {{"p", S("aaa")}}) == "\"a\"");
  CHECK(Eval("split_part(p, \"aa\", -2)", {{"p", S("aaa")}}) == "\"\"");
  CHECK(Eval("split_part(p, \"\", 1)", ev) == "\"/api/users/42\"");  // no separator: one field
  CHECK(Eval("split_part(p, \"\", -1)", ev) == "\"/api/users/42\"");
  CHECK(Eval("split_part(p, \"\", 2)", ev) == "\"\"");
  CHECK(Eval("split_part(p, \",\", 1)", ev) == "\"/api/users/42\"");
  CHECK(Eval("split_part(\"\", \",\", 1)", ev) == "\"\"");
  uint64_t m = 0;
  CHECK(Eval("split_part(p, 1, 1)", ev, &m) == "null");
  CHECK(m == 1);
  CHECK(Eval("split_part(missing, \"/\", 1)", ev, &m) == "null");
  CHECK(m == 0);
  CHECK(Error("split_part(p, \"/\", 0)") ==
        "position 20: split_part counts fields from 1, or from -1 for the last: not 0");
  CHECK(Error("split_part(p, \"/\", n)") ==
        "position 20: the field number of split_part is an integer literal");
  CHECK(Error("split_part(p, \"/\", 1.5)") ==
        "position 20: the field number of split_part is an integer literal");
}

TEST_CASE("expr: concat joins strings; null or another type gives null") {
  const std::map<std::string, ValueRef> ev = {{"m", S("GET")}, {"p", S("/api")}, {"n", I(2)}};
  CHECK(Eval("concat(m, \" \", p)", ev) == "\"GET /api\"");
  CHECK(Eval("concat(m)", ev) == "\"GET\"");
  CHECK(Eval("concat(m, \"\", \"\")", ev) == "\"GET\"");
  CHECK(Eval("concat(m, missing)", ev) == "null");
  uint64_t m = 0;
  CHECK(Eval("concat(m, n)", ev, &m) == "null");  // a number is no string: counted
  CHECK(m == 1);
  CHECK(Eval("concat(lower(m), \"-\", upper(p))", ev) == "\"get-/API\"");
  CHECK(Eval("concat(concat(m, m), m)", ev) == "\"GETGETGET\"");
}

TEST_CASE("expr: round to digits, halves away from zero") {
  CHECK(Eval("round(3.14159, 2)") == "3.14");
  CHECK(Eval("round(2.5, 0)") == "3");
  CHECK(Eval("round(-2.5, 0)") == "-3");
  CHECK(Eval("round(0.125, 2)") == "0.13");   // 0.125 is exact in binary: a half
  // x * 10^digits rounded, then divided back, in doubles (as DuckDB): 2.675 * 100 is 267.5, but
  // 1.005 * 100 is 100.49999999999999.
  CHECK(Eval("round(2.675, 2)") == "2.68");
  CHECK(Eval("round(1.005, 2)") == "1");
  CHECK(Eval("round(1234.5, -2)") == "1200");
  CHECK(Eval("round(1250, -2)") == "1300");   // integers: halves away from zero too
  CHECK(Eval("round(-1250, -2)") == "-1300");
  CHECK(Eval("round(1249, -2)") == "1200");
  CHECK(Eval("round(7, 2)") == "7");          // an integer with digits >= 0 stays
  CHECK(Eval("round(5, -1)") == "10");
  CHECK(Eval("round(4, -1)") == "0");
  CHECK(Eval("round(123.456, -400)") == "0");
  CHECK(Eval("round(123.456, 400)") == "123.456");
  CHECK(Eval("round(1e300, 10)") == "1e+300");
  CHECK(Eval("round(-0.4, 0)") == "0");
  CHECK(Eval("round(missing, 2)") == "null");
  uint64_t m = 0;
  CHECK(Eval("round(s, 2)", {{"s", S("1.5")}}, &m) == "null");
  CHECK(m == 1);
  CHECK(Error("round(x, d)") == "position 10: the digits of round is an integer literal");
  CHECK(Error("round(x, 0.5)") == "position 10: the digits of round is an integer literal");
  CHECK(Canonical("round(x, 2.0)") == "round(.x,2)");
}

TEST_CASE("expr: the new functions in canonical text") {
  CHECK(Canonical("regexp_replace( path , \"[0-9]+\" , \":id\" )") ==
        "regexp_replace(.path,\"[0-9]+\",\":id\")");
  CHECK(Canonical("regexp_extract(p, \"a(b)\", 1)") == "regexp_extract(.p,\"a(b)\",1)");
  CHECK(Canonical("coalesce(a, \"x\")") == "coalesce(.a,\"x\")");
  CHECK(Canonical("split_part(p, \"/\", -1)") == "split_part(.p,\"/\",-1)");
  CHECK(Canonical("concat(a, \"\\u0041\")") == "concat(.a,\"A\")");
  CHECK(Canonical("round(x, -1)") == "round(.x,-1)");
}

TEST_CASE("expr: case when takes the first arm whose condition is true") {
  const std::string e =
      "case when s >= 500 then \"error\" when s >= 400 then \"client\" else "
      "\"ok\" end";
  CHECK(Eval(e, {{"s", I(503)}}) == "\"error\"");
  CHECK(Eval(e, {{"s", I(404)}}) == "\"client\"");
  CHECK(Eval(e, {{"s", I(200)}}) == "\"ok\"");
  CHECK(Eval(e) == "\"ok\"");  // null conditions pass on, as false: the else
  // Without else: null when no condition holds.
  CHECK(Eval("case when s > 1 then 1 end", {{"s", I(0)}}) == "null");
  CHECK(Eval("case when s > 1 then 1 end", {{"s", I(2)}}) == "1");
  // SQL's upper case, and any spacing.
  CHECK(Eval("CASE WHEN s > 1 THEN \"a\" ELSE \"b\" END", {{"s", I(2)}}) == "\"a\"");
  CHECK(Eval("case\nwhen s>1\tthen 1 else 2 end", {{"s", I(2)}}) == "1");
  // Branches of any type; a condition that is not a boolean makes the whole case null, counted.
  CHECK(Eval("case when ok then 1 else \"x\" end", {{"ok", ValueRef::Bool(false)}}) == "\"x\"");
  uint64_t m = 0;
  CHECK(Eval("case when s then 1 when true then 2 end", {{"s", I(1)}}, &m) == "null");
  CHECK(m == 1);
  // A condition after the one that holds is not evaluated (no mismatch counted).
  CHECK(Eval("case when true then 1 when s then 2 end", {{"s", I(1)}}, &m) == "1");
  CHECK(m == 0);
  // Only the arm taken is evaluated.
  CHECK(Eval("case when true then 1 else s + 1 end", {{"s", S("x")}}, &m) == "1");
  CHECK(m == 0);
  // Nested, and as an operand.
  CHECK(Eval("1 + case when a then case when b then 10 else 20 end else 30 end",
             {{"a", ValueRef::Bool(true)}, {"b", ValueRef::Bool(false)}}) == "21");
  CHECK(Eval("(case when a then \"x\" end) == \"x\"", {{"a", ValueRef::Bool(true)}}) == "true");
}

TEST_CASE("expr: case is if, in canonical text and in meaning") {
  CHECK(Canonical("case when a == 1 then \"x\" when b then 2 else c end") ==
        "if((.a == 1),\"x\",if(.b,2,.c))");
  CHECK(Canonical("CASE WHEN a THEN 1 END") == "if(.a,1,null)");
  CHECK(Canonical("case when a then 1 end") == Canonical("if(a, 1, null)"));
}

TEST_CASE("expr: a field named case or end stays a field") {
  CHECK(Eval("case == 1", {{"case", I(1)}}) == "true");
  CHECK(Eval("case and end", {{"case", ValueRef::Bool(true)}, {"end", ValueRef::Bool(true)}}) ==
        "true");
  CHECK(Eval("case when end then case else 0 end",
             {{"case", I(7)}, {"end", ValueRef::Bool(true)}}) == "7");
  CHECK(Canonical("end + case") == "(.end + .case)");
}

TEST_CASE("expr: case errors name what is missing") {
  CHECK(Error("case when a 1 end") ==
        "position 13: expected then after the condition, as in case when x > 1 then \"big\" end");
  CHECK(Error("case when a then 1") == "position 19: expected when, else or end in case ... end");
  CHECK(Error("case when a then 1 else 2") ==
        "position 26: expected when, else or end in case ... end");
  CHECK(Error("case x when 1 then 2 end") ==
        "position 6: case takes conditions: case when status >= 500 then \"error\" else \"ok\" "
        "end (the form case x when 1 is not supported: write case when x == 1)");
  CHECK(Error("case when then 1 end") == "position 11: expected a condition after when");
  CHECK(Error("case when a then 1 end end") == "position 24: unexpected \"end\"");
}

TEST_CASE("expr: || joins strings as concat does") {
  const std::map<std::string, ValueRef> ev = {{"m", S("GET")}, {"p", S("/api")}, {"n", I(3)}};
  CHECK(Eval("m || \" \" || p", ev) == "\"GET /api\"");
  CHECK(Eval("m||p", ev) == "\"GET/api\"");
  CHECK(Eval("m || missing", ev) == "null");
  uint64_t m = 0;
  CHECK(Eval("m || n", ev, &m) == "null");  // a number is no string: counted
  CHECK(m == 1);
  // Looser than + and -, tighter than comparisons: (m || p) == "GET/api".
  CHECK(Eval("m || p == \"GET/api\"", ev) == "true");
  CHECK(Eval("\"a\" || n + 1", ev, &m) == "null");  // "a" || (n + 1): a number
  CHECK(m == 1);
  CHECK(Canonical("a || \"-\" || b") == "concat(.a,\"-\",.b)");
  CHECK(Canonical("a || b") == Canonical("concat(a, b)"));
  CHECK(Canonical("(a || b) || c") == "concat(concat(.a,.b),.c)");
  CHECK(Error("a || ") == "position 6: expected an operand");
  CHECK(Error("a | b") == "position 3: unexpected \"|\"");
}

TEST_CASE("expr: comparisons of a number with a string literal are counted (issue 32)") {
  auto misses = [](const std::string& text, const ValueRef& v) {
    Expr e;
    REQUIRE(Expr::Parse(text, &e).ok());
    std::vector<ValueRef> values(e.paths().size(), v);
    e.Test(values.data());
    e.Eval(values.data());  // both paths: Test's fast one and Eval's
    return e.literal_kind_misses();
  };
  CHECK(misses("s >= \"500\"", I(503)) == 2);
  CHECK(misses("s == 500", S("500")) == 2);  // a string field, a number literal (Test's)
  CHECK(misses("\"500\" < s", I(503)) == 2);
  CHECK(misses("s >= 500", I(503)) == 0);
  CHECK(misses("s == \"x\"", S("x")) == 0);
  CHECK(misses("s == \"x\"", ValueRef::Bool(true)) == 0);  // a boolean: no number or string
  CHECK(misses("s == \"x\"", kNull) == 0);                 // null: no comparison
  CHECK(misses("s == t", I(1)) == 0);                      // two fields: no literal
}

}  // namespace
}  // namespace logtide
