// Issue 28, item 1: user text in --explain=sql:duckdb and sql:flink scripts. Every control
// character in every place user text reaches a script must leave the script's statements as
// they are and no comment able to end early or hide what follows it.
#include "plan/sql_text.h"

#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "plan/plan_of.h"
#include <functional>
#include <memory>

#include "engine/engine.h"
#include "expr/expr.h"
#include "json/field_path.h"
#include "plan/duckdb_sql.h"
#include "plan/flink_sql.h"
#include "plan/query_plan.h"

namespace logtide {
namespace {

TEST_CASE("VisibleText writes controls, separators and broken UTF-8 as visible escapes") {
  CHECK(VisibleText("a\rb") == "a\\rb");
  CHECK(VisibleText("\n\t") == "\\n\\t");
  CHECK(VisibleText(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(VisibleText("\x1b[2K\x7f") == "\\x1b[2K\\x7f");
  CHECK(VisibleText("x\xc2\x85y") == "x\\u0085y");            // NEL
  CHECK(VisibleText("\xe2\x80\xa8\xe2\x80\xa9") == "\\u2028\\u2029");
  CHECK(VisibleText("\xe2\x80\xae") == "\\u202e");            // right-to-left override
  CHECK(VisibleText("\xff\xc3") == "\\xff\\xc3");             // not UTF-8
  CHECK(VisibleText("caf\xc3\xa9 \xe2\x86\x92 \\r") == "caf\xc3\xa9 \xe2\x86\x92 \\r");
}

TEST_CASE("SqlComment ends its comment lines only where it starts new ones") {
  CHECK(SqlComment("a\rDROP TABLE t;") == "-- a\\rDROP TABLE t;\n");
  CHECK(SqlComment("one\ntwo", "  ") == "  -- one\n  -- two\n");
}

// The characters a comment must never hold raw: every ASCII control byte, and U+0085 (NEL),
// U+2028 and U+2029, which some readers take as line ends.
std::vector<std::string> Dangerous() {
  std::vector<std::string> out;
  for (int c = 0; c < 0x20; ++c) out.emplace_back(1, static_cast<char>(c));
  out.emplace_back("\x7f");
  out.emplace_back("\xc2\x85");
  out.emplace_back("\xe2\x80\xa8");
  out.emplace_back("\xe2\x80\xa9");
  return out;
}

// `ch` as a JSON escape, for the places that take JSON strings (quoted keys, string literals).
std::string JsonEscape(const std::string& ch) {
  if (ch.size() == 1) return fmt::format("\\u{:04x}", static_cast<unsigned char>(ch[0]));
  return ch == "\xc2\x85" ? "\\u0085" : ch == "\xe2\x80\xa8" ? "\\u2028" : "\\u2029";
}

// What follows the character in each place: a statement, should the character end a comment.
constexpr const char* kPayload = "CREATE TABLE pwned AS SELECT 42;--";

std::string Canonical(const std::string& text) {
  Expr e;
  REQUIRE(Expr::Parse(text, &e).ok());
  return e.Canonical();
}

// A place user text reaches the script, and how `ch` (raw) or `esc` (as a JSON escape) is put
// there, followed by kPayload.
struct Place {
  const char* flag;
  std::function<Status(const std::string& ch, const std::string& esc, EngineConfig*)> put;
};

const std::vector<Place>& Places() {
  static const std::vector<Place> places = {
      {"input", [](const std::string& ch, const std::string&, EngineConfig* c) {
         c->inputs = {"x" + ch + kPayload};
         return Status::Ok();
       }},
      {"--time-format", [](const std::string& ch, const std::string&, EngineConfig* c) {
         c->time_format = "%Y-%m-%dT%H:%M:%S" + ch + kPayload;
         return Status::Ok();
       }},
      {"--time", [](const std::string&, const std::string& esc, EngineConfig* c) {
         return NormalizeFieldPath("--time", "\"t" + esc + kPayload + "\"", &c->time_field);
       }},
      {"--by", [](const std::string&, const std::string& esc, EngineConfig* c) {
         std::string path;
         Status s = NormalizeFieldPath("--by", ".\"k" + esc + kPayload + "\"", &path);
         c->by = {path};
         return s;
       }},
      {"--by", [](const std::string& ch, const std::string&, EngineConfig* c) {  // its name
         c->by = {"k" + ch + kPayload};
         c->by_expr = {Canonical("lower(svc)")};
         return Status::Ok();
       }},
      {"--by", [](const std::string&, const std::string& esc, EngineConfig* c) {  // a literal
         c->by = {"d"};
         c->by_expr = {Canonical("\"s" + esc + kPayload + "\"")};
         return Status::Ok();
       }},
      {"--agg", [](const std::string&, const std::string& esc, EngineConfig* c) {  // a field
         return ParseAggList("first(\"v" + esc + kPayload + "\")", &c->aggs);
       }},
      {"--agg", [](const std::string& ch, const std::string&, EngineConfig* c) {  // a name
         return ParseAggList("n" + ch + kPayload + "=count", &c->aggs);
       }},
      {"--agg", [](const std::string&, const std::string& esc, EngineConfig* c) {  // a filter
         return ParseAggList("f=count filter svc == \"s" + esc + kPayload + "\"", &c->aggs);
       }},
      {"--where", [](const std::string&, const std::string& esc, EngineConfig* c) {
         c->where = {Canonical("svc == \"s" + esc + kPayload + "\"")};
         return Status::Ok();
       }},
      {"--where", [](const std::string&, const std::string& esc, EngineConfig* c) {  // a field
         c->where = {Canonical(".\"w" + esc + kPayload + "\" == 1")};
         return Status::Ok();
       }},
      {"--where", [](const std::string&, const std::string& esc, EngineConfig* c) {  // a pattern
         c->where = {Canonical("matches(svc, \"a" + esc + kPayload + "\")")};
         return Status::Ok();
       }},
  };
  return places;
}

// Scans `sql` as DuckDB's and Calcite's lexers do: strings in '...', identifiers in "..."
// (DuckDB) or `...` (Flink), each with its quote doubled inside, and line comments from "--" to
// the next '\n' or '\r' (both lexers end one at either). Sets *statements to the number of ';'
// outside them. Returns what breaks the invariant, or "" when it holds:
//   - no NUL byte anywhere;
//   - a comment holds no byte below 0x20, no 0x7f, and no U+0085, U+2028 or U+2029, so it ends
//     only at a '\n';
//   - outside strings, identifiers and comments, only printable ASCII and '\n'; no "/*".
// Raw control bytes can remain only inside quotes, where both lexers take them as part of the
// string or the name.
std::string Scan(const std::string& sql, char ident_quote, int* statements) {
  *statements = 0;
  if (sql.find('\0') != std::string::npos) return "a NUL byte";
  for (size_t i = 0; i < sql.size();) {
    const char c = sql[i];
    if (c == '\'' || c == ident_quote) {
      size_t j = i + 1;
      while (true) {
        j = sql.find(c, j);
        if (j == std::string::npos) return fmt::format("a quote at {} is not closed", i);
        if (j + 1 < sql.size() && sql[j + 1] == c) {
          j += 2;
          continue;
        }
        break;
      }
      i = j + 1;
    } else if (sql.compare(i, 2, "--") == 0) {
      const size_t end = std::min(sql.find('\n', i), sql.size());
      const std::string comment = sql.substr(i, end - i);
      for (const unsigned char b : comment) {
        if (b < 0x20 || b == 0x7f) return fmt::format("byte 0x{:02x} in the comment {}", b, comment);
      }
      for (const char* sep : {"\xc2\x85", "\xe2\x80\xa8", "\xe2\x80\xa9"}) {
        if (comment.find(sep) != std::string::npos) return "a line separator in " + comment;
      }
      i = end;
    } else {
      const auto b = static_cast<unsigned char>(c);
      if ((b < 0x20 && c != '\n') || b >= 0x7f)
        return fmt::format("byte 0x{:02x} outside quotes and comments at {}", b, i);
      if (sql.compare(i, 2, "/*") == 0) return "a block comment";
      if (c == ';') ++*statements;
      ++i;
    }
  }
  return "";
}

// Returns the checked configuration of the query with `ch` in `place`, or a refusal.
Status Configure(const Place& place, const std::string& ch, std::unique_ptr<Engine>* engine) {
  EngineConfig c;
  REQUIRE(ParseWindowSpec("tumbling:1m", &c.window).ok());
  c.inputs = {"app.log"};
  c.by = {"svc"};
  if (Status s = place.put(ch, JsonEscape(ch), &c); !s.ok()) return s;
  return Engine::Create(c, engine);
}

TEST_CASE("every control character in every place leaves the SQL's statements and comments "
          "whole (issue 28)") {
  int rendered = 0, refused = 0;
  for (const Place& place : Places()) {
    // The same query with a plain letter in the place: its statements.
    std::unique_ptr<Engine> plain;
    REQUIRE(Configure(place, "x", &plain).ok());
    for (const std::string& ch : Dangerous()) {
      INFO(place.flag << " with " << VisibleText(ch));
      std::unique_ptr<Engine> engine;
      const Status checked = Configure(place, ch, &engine);
      if (!checked.ok()) {  // refused where the flag is read: no script at all
        CHECK(!checked.message().empty());
        ++refused;
        continue;
      }
      const Status st = CheckSqlText(engine->config());
      if (!st.ok()) {
        // Refused only for a NUL, which neither dialect can hold in quotes; the message says
        // which flag and which byte.
        CHECK(ch == std::string(1, '\0'));
        CHECK(st.code() == Status::Code::kInvalidArgument);
        CHECK(st.message().find(place.flag) != std::string::npos);
        CHECK(st.message().find("NUL byte (\\x00)") != std::string::npos);
        ++refused;
        continue;
      }
      for (const SqlDialect d : {SqlDialect::kDuckDb, SqlDialect::kFlink}) {
        if (!Untranslated(engine->config(), d).empty()) continue;
        const QueryPlan p = PlanOf(engine->config());
        const std::string sql = d == SqlDialect::kDuckDb ? DuckDbSql(p) : FlinkSql(p);
        const std::string base = d == SqlDialect::kDuckDb ? DuckDbSql(PlanOf(plain->config()))
                                                           : FlinkSql(PlanOf(plain->config()));
        INFO((d == SqlDialect::kDuckDb ? "DuckDB" : "Flink") << " script:\n" << VisibleText(sql));
        const char quote = d == SqlDialect::kDuckDb ? '"' : '`';
        int statements = 0, base_statements = 0;
        REQUIRE(Scan(base, quote, &base_statements) == "");
        CHECK(Scan(sql, quote, &statements) == "");
        CHECK(statements == base_statements);
        CHECK(sql.find("pwned") != std::string::npos);  // the text did reach the script
        ++rendered;
      }
    }
  }
  // Each place renders in both dialects for all but NUL (and what the flags refuse).
  CHECK(rendered >= 2 * 12 * 30);
  CHECK(refused <= 12 * 3);
}

}  // namespace
}  // namespace logtide
