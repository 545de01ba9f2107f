#include "plan/query_plan.h"

#include <catch2/catch.hpp>

#include "plan/plan_of.h"

#include "expr/expr.h"
#include "plan/duckdb_sql.h"
#include "plan/flink_sql.h"
#include "plan/sql_text.h"
#include "time/duration.h"

namespace logtide {
namespace {

constexpr Nanos kS = kNanosPerSecond;

Query Config(const char* window, std::vector<std::string> by,
                    std::vector<const char*> aggs) {
  Query c;
  REQUIRE(ParseWindowSpec(window, &c.window).ok());
  c.by = std::move(by);
  for (const char* a : aggs) REQUIRE(ParseAggList(a, &c.aggs).ok());
  c.inputs = {"app.log"};
  return c;
}

const SourceField& Field(const std::vector<SourceField>& fields, const std::string& name) {
  for (const SourceField& f : fields) {
    if (!f.segment.is_index && f.segment.key == name) return f;
  }
  FAIL("no field " << name);
  return fields.front();
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("a field used as a key and by sum is read as any JSON value") {
  const QueryPlan p = PlanOf(Config("tumbling:1m", {"status"}, {"sum(status)"}));
  CHECK(Field(p.fields, "status").use == FieldUse::kAny);
  CHECK(Field(p.fields, "ts").use == FieldUse::kTime);
}

TEST_CASE("a field used only by numeric aggregates is read as a number") {
  const QueryPlan p =
      PlanOf(Config("tumbling:1m", {}, {"avg(latency_ms)", "p99(latency_ms)"}));
  CHECK(Field(p.fields, "latency_ms").use == FieldUse::kNumber);
}

TEST_CASE("nested paths become records, and a record used whole is read whole") {
  QueryPlan p = PlanOf(Config("tumbling:1m", {"req.method"}, {"count(req.path)"}));
  const SourceField& req = Field(p.fields, "req");
  CHECK(req.use == FieldUse::kRecord);
  CHECK(req.children.size() == 2);
  CHECK(Has(DuckDbSql(p), "\"req\": 'STRUCT(\"method\" JSON, \"path\" JSON)'"));
  CHECK(Has(FlinkSql(p), "`req` ROW<`method` STRING, `path` STRING>"));
  CHECK(Has(FlinkSql(p), "`req`.`method` AS `req.method`"));

  p = PlanOf(Config("tumbling:1m", {"req.method"}, {"first(req)"}));
  CHECK(Field(p.fields, "req").use == FieldUse::kAny);
  CHECK(Has(DuckDbSql(p), "json_extract(\"req\", '$.\"method\"')"));
  CHECK(Has(FlinkSql(p), "JSON_VALUE(`req`, '$.method')"));
}

TEST_CASE("the time field keeps its reading when it is also a key") {
  const QueryPlan p = PlanOf(Config("tumbling:1m", {"ts"}, {"count"}));
  CHECK(Field(p.fields, "ts").use == FieldUse::kTime);
}

TEST_CASE("paths split into their segments: keys, quoted keys and indices") {
  CHECK(SplitPath("a").size() == 1);
  const FieldPath p = SplitPath("req.headers[\"x.y\"].tags[-1]");
  REQUIRE(p.size() == 5);
  CHECK(p[0].key == "req");
  CHECK(p[2].key == "x.y");
  CHECK(p[4].is_index);
  CHECK(p[4].index == -1);
  CHECK(FieldPathText(p) == "req.headers[\"x.y\"].tags[-1]");
}

TEST_CASE("array elements: the array a field of its own, read as JSON in DuckDB, ARRAY in Flink") {
  const QueryPlan p = PlanOf(Config(
      "tumbling:1m", {"tags[0]"}, {"first(tags[-1])", "sum(tags[-3].n)", "count(m[1][-1])"}));
  const SourceField& tags = Field(p.fields, "tags");
  CHECK(tags.use == FieldUse::kArray);
  REQUIRE(tags.children.size() == 3);
  CHECK(tags.children[0].segment.is_index);
  CHECK(tags.children[1].segment.index == -1);
  CHECK(tags.children[2].use == FieldUse::kRecord);
  CHECK(p.keys[0] == "tags[0]");
  const std::string d = DuckDbSql(p);
  CHECK(Has(d, "\"tags\": 'JSON'"));
  CHECK(Has(d, "logtide_value(json_extract(\"tags\", '$[0]')) AS \"key_1\""));
  CHECK(Has(d, "json_extract(\"tags\", '$[#-1]')"));
  CHECK(Has(d, "logtide_double(json_extract(\"tags\", '$[#-3].\"n\"'))"));
  CHECK(Has(d, "json_extract(\"m\", '$[1][#-1]')"));
  CHECK(Has(d, "\"key_1\" AS \"tags[0]\""));
  const std::string f = FlinkSql(p);
  CHECK(Has(f, "`tags` ARRAY<STRING>,"));
  CHECK(Has(f, "`tags`[1] AS `tags[0]`"));
  CHECK(Has(
      f, "FIRST_VALUE(CASE WHEN CARDINALITY(`tags`) >= 1 THEN `tags`[CARDINALITY(`tags`)] END)"));
  CHECK(Has(f,
            "JSON_VALUE(CASE WHEN CARDINALITY(`tags`) >= 3 THEN `tags`[CARDINALITY(`tags`) - 2] "
            "END, '$.n')"));
  CHECK(Has(f, "JSON_VALUE(`m`[2], '$[-1]')"));
}

TEST_CASE("quoted keys are names: quoted identifiers, quoted in JSON paths, named without quotes") {
  const QueryPlan p =
      PlanOf(Config("tumbling:1m", {"[\"log.level\"]"},
                            {"sum(http[\"req.bytes\"])", "first(o[\"a b\"])", "count(o)"}));
  CHECK(p.keys[0] == "log.level");
  CHECK(Field(p.fields, "log.level").use == FieldUse::kAny);
  const std::string d = DuckDbSql(p);
  CHECK(Has(d, "\"log.level\": 'JSON'"));
  CHECK(Has(d, "\"http\": 'STRUCT(\"req.bytes\" DOUBLE)'"));
  CHECK(Has(d, "json_extract(\"o\", '$.\"a b\"')"));
  CHECK(Has(d, "AS \"sum_http.req.bytes\""));
  const std::string f = FlinkSql(p);
  CHECK(Has(f, "`http` ROW<`req.bytes` DOUBLE>,"));
  CHECK(Has(f, "SUM(`http`.`req.bytes`) AS `sum_http.req.bytes`"));
  CHECK(Has(f, "JSON_VALUE(`o`, '$[''a b'']')"));
  CHECK(Has(f, "`log.level` AS `log.level`"));
}

TEST_CASE("a field used as an object and as an array (in other events) is read whole") {
  const QueryPlan p = PlanOf(Config("tumbling:1m", {"a.b"}, {"count(a[0])"}));
  CHECK(Field(p.fields, "a").use == FieldUse::kAny);
  const std::string d = DuckDbSql(p);
  CHECK(Has(d, "json_extract(\"a\", '$.\"b\"')"));
  CHECK(Has(d, "json_extract(\"a\", '$[0]')"));
  const std::string f = FlinkSql(p);
  CHECK(Has(f, "`a` STRING,"));
  CHECK(Has(f, "JSON_VALUE(`a`, '$[0]')"));
}

// Returns `text` in canonical form, as the flags store expressions.
std::string Canonical(const char* text) {
  Expr e;
  REQUIRE(Expr::Parse(text, &e).ok());
  return e.Canonical();
}

TEST_CASE("expressions become typed trees, their fields source fields") {
  Query c = Config("tumbling:1m", {"service", "class"}, {"count"});
  c.where = {Canonical("status >= 500 and not startswith(req.path, \"/x\")")};
  c.by_expr = {"", Canonical("floor(status / 100)")};
  const QueryPlan p = PlanOf(c);
  REQUIRE(p.where.size() == 1);
  const PlanExpr& w = p.where[0];
  CHECK(w.op == PlanExpr::Op::kAnd);
  CHECK(w.type == PlanExpr::Type::kBool);
  CHECK(w.args[0].op == PlanExpr::Op::kGe);
  CHECK(w.args[0].args[0].op == PlanExpr::Op::kField);
  CHECK(w.args[0].args[0].type == PlanExpr::Type::kAny);
  CHECK(w.args[0].args[1].literal.is_int);
  CHECK(w.args[0].args[1].literal.i == 500);
  CHECK(FieldPathText(w.args[1].args[0].args[0].path) == "req.path");
  CHECK(Field(p.fields, "status").use == FieldUse::kAny);
  CHECK(Field(Field(p.fields, "req").children, "path").use == FieldUse::kAny);
  // A derived key has no path, its expression instead.
  CHECK(FieldPathText(p.key_paths[0]) == "service");
  CHECK(p.key_paths[1].empty());
  CHECK(p.key_exprs[1].op == PlanExpr::Op::kFloor);
  CHECK(p.key_exprs[1].type == PlanExpr::Type::kNumber);
  CHECK(p.key_exprs[1].text == "floor((.status / 100))");
  CHECK(HasExpressions(p));
  CHECK_FALSE(HasExpressions(PlanOf(Config("tumbling:1m", {"k"}, {"count"}))));
}

TEST_CASE("a field compared with a literal is compared only when it holds the literal's type") {
  Query c = Config("tumbling:1m", {}, {"count"});
  c.where = {Canonical("status >= 500")};
  const QueryPlan p = PlanOf(c);
  CHECK(Has(DuckDbSql(p),
            "WHERE CASE WHEN logtide_kind(\"status\") = 'number' THEN logtide_double(\"status\") "
            ">= 500 WHEN logtide_kind(\"status\") IS NOT NULL THEN FALSE END"));
  CHECK(Has(FlinkSql(p),
            "THEN CAST(`status` AS DOUBLE) >= 500 WHEN `status` IS NOT NULL THEN "
            "FALSE END;"));
}

TEST_CASE("values of types known to differ: only != holds, and null stays unknown") {
  Query c = Config("tumbling:1m", {}, {"count"});
  c.where = {Canonical("\"a\" != 1"), Canonical("lower(s) == 1"), Canonical("x == null")};
  const std::string s = DuckDbSql(PlanOf(c));
  CHECK(Has(s, "WHERE TRUE  --"));
  CHECK(Has(s, "AND CASE WHEN translate(logtide_string(\"s\")"));
  CHECK(Has(s, "IS NOT NULL THEN FALSE END  --"));
  CHECK(Has(s, "AND CAST(NULL AS BOOLEAN)  --"));
}

TEST_CASE("filter aggregates: FILTER (WHERE) in DuckDB, CASE WHEN in Flink") {
  Query c = Config("tumbling:1m", {},
                          {"errors=count filter status >= 500", "sum(bytes) filter exists(user)",
                           "first(user) filter ok"});
  for (AggSpec& a : c.aggs) a.filter = Canonical(a.filter.c_str());
  const QueryPlan p = PlanOf(c);
  REQUIRE(p.aggs[0].filter.size() == 1);
  const std::string d = DuckDbSql(p);
  CHECK(Has(d, "count(*) FILTER (WHERE \"filter_1\") AS \"errors\""));
  CHECK(Has(d, "sum(\"value_2\") FILTER (WHERE \"filter_2\") AS \"sum_bytes_filtered\""));
  CHECK(Has(d, "FILTER (WHERE \"value_3\" IS NOT NULL AND \"filter_3\")"));
  CHECK(Has(d, "(logtide_kind(\"user\") IS NOT NULL) AS \"filter_2\""));
  const std::string f = FlinkSql(p);
  CHECK(Has(f, "COUNT(CASE WHEN CASE WHEN REGEXP(`status`"));
  CHECK(Has(f, "SUM(CASE WHEN (`user` IS NOT NULL) THEN"));
  CHECK(Has(f,
            "FIRST_VALUE(CASE WHEN CASE `ok` WHEN 'true' THEN TRUE WHEN 'false' THEN FALSE "
            "END THEN `user` END)"));
}

TEST_CASE("derived keys: in SELECT and GROUP BY, named by the flag, typed in the Flink sink") {
  Query c = Config("tumbling:1m", {"class"}, {"count"});
  c.by_expr = {Canonical("floor(status / 100)")};
  const QueryPlan p = PlanOf(c);
  const std::string d = DuckDbSql(p);
  CHECK(Has(d,
            "logtide_value(to_json(floor(logtide_finite(logtide_double(\"status\") / CAST(100 "
            "AS DOUBLE))))) AS \"key_1\""));
  CHECK(Has(d, "\"key_1\" AS \"class\""));
  const std::string f = FlinkSql(p);
  CHECK(Has(f, "`class` DOUBLE,"));
  CHECK(Has(f, "GROUP BY window_start, window_end, FLOOR((CASE WHEN REGEXP(`status`"));
  CHECK(Has(CommandLine(c), "--by 'class=floor((.status / 100))'"));
}

TEST_CASE("Flink: weeks from Monday are its grid from Thursday 1970-01-01 moved by 4 days") {
  constexpr Nanos kD = 86400 * kS;
  // 1970-01-05 was a Monday, 1970-01-04 a Sunday; logtide's fortnights start on Monday
  // 1969-12-29 and 1970-01-12, 11 days after 1970-01-01.
  for (const auto& [window, size, offset] :
       {std::tuple{"tumbling:1w", 7 * kD, 4 * kD},
        std::tuple{"tumbling:1w:offset=-1d", 7 * kD, 3 * kD},
        std::tuple{"tumbling:2w", 14 * kD, 11 * kD},
        std::tuple{"tumbling:1h:offset=90m", 3600 * kS, 1800 * kS}}) {
    Query c = Config(window, {}, {"count"});
    CAPTURE(window);
    CHECK(FlinkWindowSize(c.window) == size);
    CHECK(FlinkWindowOffset(c.window) == offset);
  }
  Query c = Config("tumbling:1w", {}, {"count"});
  CHECK(Has(FlinkSql(PlanOf(c)), "INTERVAL '7' DAY, INTERVAL '4' DAY))"));
  // Late firing is the group-window form, which takes no offset.
  c.emit = EmitMode::kUpdate;
  c.lateness = 60 * kS;
  const std::vector<std::string> why = Untranslated(c, SqlDialect::kFlink);
  REQUIRE(why.size() == 1);
  CHECK_THAT(why[0], Catch::Contains("which takes no offset (weeks from Monday"));
}

TEST_CASE("Flink: division and remainder guard a divisor that may be zero") {
  Query c = Config("tumbling:1m", {}, {"count"});
  c.where = {Canonical("a / b > 1"), Canonical("a % 2 == 1")};
  const std::string f = FlinkSql(PlanOf(c));
  CHECK(Has(f, "CASE WHEN CASE WHEN REGEXP(`b`"));
  CHECK(Has(f, "<> 0 THEN"));
  CHECK(Has(f, "TRUNCATE("));
}

TEST_CASE("what a dialect cannot run faithfully is refused, naming the flag and why") {
  Query c = Config("tumbling:1m", {"n"}, {"count"});
  c.by_expr = {Canonical("len(path)")};
  c.where = {Canonical("substr(path, -3) == \"tml\""), Canonical("ts > 0")};
  CHECK(Untranslated(c, SqlDialect::kDuckDb).empty());
  const std::vector<std::string> flink = Untranslated(c, SqlDialect::kFlink);
  REQUIRE(flink.size() == 3);
  CHECK_THAT(flink[0], Catch::StartsWith("--where 'substr(.path,(-3)) == \"tml\"'") ||
                           Catch::StartsWith("--where '(substr(.path,-3) == \"tml\")': substr"));
  CHECK_THAT(flink[1], Catch::Contains("the --time field ts"));
  CHECK_THAT(flink[2], Catch::StartsWith("--by 'n=len(.path)': len counts code points"));
  c.where = {Canonical("a == 1")};
  c.by_expr = {""};
  c.by = {"tags[0]"};
  c.time_field = "ts[-1]";
  CHECK(Untranslated(c, SqlDialect::kDuckDb).empty());
  CHECK(Untranslated(c, SqlDialect::kFlink).size() == 1);
  CHECK_THAT(Untranslated(c, SqlDialect::kFlink).at(0),
             Catch::StartsWith("--time 'ts[-1]': the field is an array element"));
  c.time_field = "[\"@timestamp\"]";
  CHECK(Untranslated(c, SqlDialect::kFlink).empty());
}

TEST_CASE("a --time-format pattern with seconds since 1970 is refused in both dialects") {
  Query c = Config("tumbling:1m", {"n"}, {"count"});
  c.time_format = "%s.%f";
  for (SqlDialect d : {SqlDialect::kDuckDb, SqlDialect::kFlink}) {
    const std::vector<std::string> refused = Untranslated(c, d);
    REQUIRE(refused.size() == 1);
    CHECK_THAT(refused[0], Catch::StartsWith("--time-format '%s.%f': %s: seconds since 1970") &&
                               Catch::Contains("epoch_s"));
  }
  c.time_format = "%d/%b/%Y:%H:%M:%S %z";
  CHECK(Untranslated(c, SqlDialect::kDuckDb).empty());
  CHECK(Untranslated(c, SqlDialect::kFlink).empty());
}

TEST_CASE("Flink: no other path reads inside the --time field or the field holding it") {
  Query c = Config("tumbling:1m", {"req"}, {"count(ts[0])", "count(tsx)"});
  c.time_field = "req.ts";
  std::vector<std::string> flink = Untranslated(c, SqlDialect::kFlink);
  REQUIRE(flink.size() == 1);
  CHECK_THAT(flink[0], Catch::StartsWith("--by req: the path req holds the --time field req.ts"));
  c.time_field = "ts";
  c.by = {"req.ts"};
  flink = Untranslated(c, SqlDialect::kFlink);
  REQUIRE(flink.size() == 1);
  CHECK_THAT(flink[0], Catch::Contains("the path ts[0] is inside the --time field ts"));
  CHECK(Untranslated(c, SqlDialect::kDuckDb).empty());
}

TEST_CASE("aggregates say where each engine differs") {
  const QueryPlan p = PlanOf(Config(
      "tumbling:1m", {}, {"count", "avg(v)", "p99(v)", "top_k(u, 3)", "first(u)", "sum(v)"}));
  REQUIRE(p.aggs.size() == 6);
  CHECK(p.aggs[0].duckdb_note.empty());
  CHECK(p.aggs[0].flink_note.empty());
  CHECK(p.aggs[1].flink_supported);
  CHECK_FALSE(p.aggs[2].flink_supported);  // no percentile in Flink SQL
  CHECK_FALSE(p.aggs[3].flink_supported);  // no top_k
  CHECK_THAT(p.aggs[4].flink_note, Catch::Contains("arrival order"));
  CHECK_THAT(p.aggs[5].duckdb_note, Catch::Contains("2^53"));
}

TEST_CASE("the command line in the scripts' comments is quoted for a shell") {
  Query c = Config("sliding:1h:5m", {"service"}, {"p99(latency_ms)"});
  c.delay = 30 * kS;
  c.inputs = {"my app.log"};
  CHECK(CommandLine(c) ==
        "logtide --window sliding:1h:5m --by service --agg 'p99(latency_ms)' --delay 30s "
        "'my app.log'");
}

TEST_CASE("identifiers and strings are quoted, their quotes doubled") {
  CHECK(DoubleQuotedIdent("a\"b") == "\"a\"\"b\"");
  CHECK(BacktickIdent("user") == "`user`");
  CHECK(SqlString("it's") == "'it''s'");
}

TEST_CASE("comments are folded at 100 columns, continuation lines indented") {
  const std::string text(30, 'x');
  const std::string c = SqlComment(text + " " + text + " " + text + " " + text, "  ");
  CHECK(c == "  -- " + text + " " + text + " " + text + "\n  --   " + text + "\n");
  CHECK(SqlComment("a\n  b") == "-- a\n--   b\n");
}

TEST_CASE("Flink: final mode adds the lateness to the watermark's lag") {
  Query c = Config("tumbling:1m", {}, {"count"});
  c.delay = 10 * kS;
  c.lateness = 30 * kS;
  const std::string s = FlinkSql(PlanOf(c));
  CHECK(Has(s, "WATERMARK FOR `event_time` AS `event_time` - INTERVAL '40' SECOND"));
  CHECK_FALSE(Has(s, "allow-lateness"));
  CHECK(Has(s, "TABLE(TUMBLE(TABLE `logtide_events`"));
}

TEST_CASE("Flink: update mode with lateness fires late on group windows into an upsert sink") {
  Query c = Config("sliding:2m:1m", {"service"}, {"count"});
  c.delay = 10 * kS;
  c.lateness = 5 * 60 * kS;
  c.emit = EmitMode::kUpdate;
  const std::string s = FlinkSql(PlanOf(c));
  CHECK(Has(s, "WATERMARK FOR `event_time` AS `event_time` - INTERVAL '10' SECOND"));
  CHECK(Has(s, "SET 'table.exec.emit.allow-lateness' = '5 min';"));
  CHECK(Has(s, "GROUP BY HOP(`event_time`, INTERVAL '1' MINUTE, INTERVAL '2' MINUTE), `service`"));
  CHECK(Has(s, "'connector' = 'upsert-kafka'"));
}

TEST_CASE(
    "Flink: intervals past two digits as fields from a larger unit; milliseconds as seconds") {
  // A count of 3 digits would need a leading precision (MINUTE(3)), which Flink SQL grammars
  // other than Calcite's refuse; past 99 days there is no larger unit.
  for (const auto& [gap, interval] :
       {std::pair{"session:100m", "INTERVAL '1:40' HOUR TO MINUTE"},
        std::pair{"session:150s", "INTERVAL '2:30' MINUTE TO SECOND"},
        std::pair{"session:100500ms", "INTERVAL '1:40.500' MINUTE TO SECOND"},
        std::pair{"session:125h", "INTERVAL '5 05' DAY TO HOUR"},
        std::pair{"session:36h30m1s", "INTERVAL '1 12:30:01' DAY TO SECOND"},
        std::pair{"session:99d", "INTERVAL '99' DAY"},
        std::pair{"session:200d", "INTERVAL '200' DAY(3)"},
        std::pair{"session:12500ms", "INTERVAL '12.500' SECOND"},
        std::pair{"session:1500ms", "INTERVAL '1.500' SECOND"},
        std::pair{"session:250ms", "INTERVAL '0.250' SECOND"}}) {
    CAPTURE(gap);
    CHECK(Has(FlinkSql(PlanOf(Config(gap, {}, {"count"}))),
              std::string("SESSION(`event_time`, ") + interval + ")"));
  }
}

TEST_CASE("Flink: a source field named event_time leaves the name to it") {
  Query c = Config("tumbling:1m", {}, {"count"});
  c.time_field = "event_time";
  const std::string s = FlinkSql(PlanOf(c));
  CHECK(Has(s, "`logtide_event_time` AS `event_time`"));
}

TEST_CASE("DuckDB: window arithmetic per kind, ordered as logtide writes") {
  std::string s = DuckDbSql(PlanOf(Config("sliding:3m:2m", {"k"}, {"count"})));
  CHECK(Has(s,
            "unnest(generate_series(logtide_floor(event_ns - 180000000000, 120000000000) + "
            "120000000000, logtide_floor(event_ns, 120000000000), 120000000000))"));
  CHECK(Has(s, "ORDER BY start_ns + 180000000000, start_ns, logtide_key_order(\"key_1\");"));
  s = DuckDbSql(PlanOf(Config("session:30s", {"user"}, {"count"})));
  CHECK(Has(s, "lag(event_ns) OVER (PARTITION BY \"key_1\" ORDER BY event_ns) <= 30000000000"));
  CHECK(Has(s, "logtide_time(max(event_ns) + 30000000000) AS \"window_end\""));
}

}  // namespace
}  // namespace logtide

namespace logtide {
namespace {

// Issue 32: the functions for keys, typed in the plan and spelled in each dialect.
TEST_CASE("the key functions of issue 32: types and each dialect's spelling") {
  Query c = Config("tumbling:1m", {"route", "ver", "part", "both", "r", "kind", "who", "any"},
                   {"count"});
  c.by_expr = {Canonical("regexp_replace(path, \"/([0-9]+)\", \"/<\\\\1>$\")"),
               Canonical("regexp_extract(path, \"/(v[0-9]+)/\", 1)"),
               Canonical("split_part(path, \"/\", 2)"),
               Canonical("concat(service, \":\", method)"),
               Canonical("round(ms, -2)"),
               Canonical("if(status >= 500, \"error\", \"ok\")"),
               Canonical("coalesce(user, \"anon\")"),
               Canonical("if(ok, 1, \"x\")")};
  const QueryPlan p = PlanOf(c);
  using Type = PlanExpr::Type;
  const Type kWant[] = {Type::kString, Type::kString, Type::kString, Type::kString,
                        Type::kNumber, Type::kString, Type::kAny,    Type::kAny};
  for (size_t i = 0; i < std::size(kWant); ++i) {
    INFO(c.by[i]);
    CHECK(p.key_exprs[i].type == kWant[i]);
  }
  const std::string d = DuckDbSql(p);
  CHECK(Has(d, "regexp_replace(logtide_string(\"path\"), '/([0-9]+)', '/<\\1>$', 'g')"));
  CHECK(Has(d, "CASE WHEN regexp_matches(logtide_string(\"path\"), '/(v[0-9]+)/') THEN "
               "regexp_extract(logtide_string(\"path\"), '/(v[0-9]+)/', 1) END"));
  CHECK(Has(d, "COALESCE(string_split(logtide_string(\"path\"), '/')[2], '')"));
  CHECK(Has(d, "(logtide_string(\"service\") || ':' || logtide_string(\"method\"))"));
  CHECK(Has(d, "round(logtide_double(\"ms\"), -2)"));
  CHECK(Has(d, "THEN 'error' ELSE 'ok' END"));
  // Values of any type: a JSON value, as a field's.
  CHECK(Has(d, "logtide_value(CASE WHEN logtide_kind(\"user\") IS NOT NULL THEN \"user\" WHEN "
               "logtide_kind(to_json('anon')) IS NOT NULL THEN to_json('anon') END)"));
  CHECK(Has(d, "THEN to_json(CAST(1 AS DOUBLE)) WHEN NOT (logtide_kind(\"ok\") IS NOT NULL) OR"));
  const std::string f = FlinkSql(p);
  CHECK(Has(f, "'/([0-9]+)', '/<$1>\\$')"));  // the rewrite in Java's syntax
  CHECK(Has(f, "REGEXP_EXTRACT("));
  CHECK(Has(f, "COALESCE(SPLIT_INDEX("));
  CHECK(Has(f, "ROUND("));
  CHECK(Has(f, "`who` STRING,"));
  CHECK(Has(f, "-a-b--d-"));  // the notes say where Java and ROUND differ
  CHECK(Has(f, "HALF_UP"));
  CHECK(Untranslated(c, SqlDialect::kFlink).empty());
  // split_part from the end: DuckDB indexes the list from the end; Flink's SPLIT_INDEX cannot.
  c.by = {"last"};
  c.by_expr = {Canonical("split_part(path, \"/\", -1)")};
  CHECK(Untranslated(c, SqlDialect::kDuckDb).empty());
  CHECK(Has(DuckDbSql(PlanOf(c)), "[-1]"));
  const std::vector<std::string> flink = Untranslated(c, SqlDialect::kFlink);
  REQUIRE(flink.size() == 1);
  CHECK_THAT(flink[0], Catch::StartsWith("--by 'last=split_part(.path,\"/\",-1)': split_part "
                                         "with a field counted from the end"));
}

}  // namespace
}  // namespace logtide

namespace logtide {
namespace {

TEST_CASE("--window-label is refused by both dialects, and written in the command line") {
  Query c = Config("tumbling:1d", {"service"}, {"count"});
  CHECK(Untranslated(c, SqlDialect::kDuckDb).empty());
  c.window_label = true;
  for (SqlDialect d : {SqlDialect::kDuckDb, SqlDialect::kFlink}) {
    const std::vector<std::string> why = Untranslated(c, d);
    REQUIRE(why.size() == 1);
    CHECK_THAT(why[0], Catch::StartsWith("--window-label: the rendering has no window_label"));
  }
  CHECK(CommandLine(c) ==
        "logtide --window tumbling:1d --window-label --by service --agg count app.log");
}

}  // namespace
}  // namespace logtide
