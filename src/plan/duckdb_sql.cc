#include "plan/duckdb_sql.h"

#include <fmt/format.h>

#include <set>

#include "plan/sql_expr.h"
#include "plan/sql_text.h"
#include "plan/time_pattern.h"
#include "time/duration.h"

namespace logtide {
namespace {

// Macros the query may call, printed before it when used. Times are int64 nanoseconds since
// 1970 throughout (DuckDB's TIMESTAMP_NS range), so windows are exact integer arithmetic.
struct Macro {
  const char* name;
  const char* text;
};
constexpr Macro kMacros[] = {
    {"logtide_floor",
     "-- The largest multiple of n at or below x (floor, also before 1970).\n"
     "CREATE OR REPLACE TEMP MACRO logtide_floor(x, n) AS x - ((x % n) + n) % n;\n"},
    {"logtide_time",
     "-- Nanoseconds since 1970 as logtide writes a time: RFC 3339 in UTC, a fraction of 3, 6 "
     "or 9\n-- digits only when it is not zero.\n"
     "CREATE OR REPLACE TEMP MACRO logtide_fraction(ns) AS ((ns % 1000000000) + 1000000000) % "
     "1000000000;\n"
     "CREATE OR REPLACE TEMP MACRO logtide_time(ns) AS\n"
     "  strftime(make_timestamp((ns - logtide_fraction(ns)) // 1000), '%Y-%m-%dT%H:%M:%S')\n"
     "  || CASE WHEN logtide_fraction(ns) = 0 THEN ''\n"
     "          WHEN logtide_fraction(ns) % 1000000 = 0 THEN printf('.%03d', "
     "logtide_fraction(ns) // 1000000)\n"
     "          WHEN logtide_fraction(ns) % 1000 = 0 THEN printf('.%06d', logtide_fraction(ns) "
     "// 1000)\n"
     "          ELSE printf('.%09d', logtide_fraction(ns)) END\n"
     "  || 'Z';\n"},
    {"logtide_is_number",
     "-- Whether a JSON value is a number (numeric aggregates ignore other types, as logtide "
     "does).\n"
     "CREATE OR REPLACE TEMP MACRO logtide_is_number(j) AS json_type(j) IN ('BIGINT', "
     "'UBIGINT', 'DOUBLE');\n"},
    {"logtide_double",
     "-- A JSON value as a double when it is a number, else NULL.\n"
     "CREATE OR REPLACE TEMP MACRO logtide_double(j) AS CASE WHEN logtide_is_number(j) THEN "
     "CAST(j AS DOUBLE) END;\n"},
    {"logtide_value",
     "-- A JSON value as logtide compares and writes it: JSON null as SQL NULL (absent and null "
     "are both\n-- null), an integral number as an integer (2.0 and 2e0 are 2).\n"
     "CREATE OR REPLACE TEMP MACRO logtide_value(j) AS\n"
     "  CASE WHEN json_type(j) = 'NULL' THEN NULL\n"
     "       WHEN json_type(j) = 'DOUBLE' AND CAST(j AS DOUBLE) = trunc(CAST(j AS DOUBLE))\n"
     "            AND abs(CAST(j AS DOUBLE)) < 9.2e18 THEN CAST(CAST(CAST(j AS DOUBLE) AS BIGINT) "
     "AS JSON)\n"
     "       ELSE j END;\n"},
    {"logtide_kind",
     "-- The kind of a JSON value, as expressions compare them; NULL for null and absent.\n"
     "CREATE OR REPLACE TEMP MACRO logtide_kind(j) AS\n"
     "  CASE json_type(j) WHEN 'BIGINT' THEN 'number' WHEN 'UBIGINT' THEN 'number' WHEN 'DOUBLE' "
     "THEN 'number'\n"
     "                    WHEN 'VARCHAR' THEN 'string' WHEN 'BOOLEAN' THEN 'boolean'\n"
     "                    WHEN 'OBJECT' THEN 'other' WHEN 'ARRAY' THEN 'other' END;\n"},
    {"logtide_string",
     "-- A JSON value as a string when it is one, else NULL.\n"
     "CREATE OR REPLACE TEMP MACRO logtide_string(j) AS CASE WHEN json_type(j) = 'VARCHAR' THEN "
     "j->>'$' END;\n"},
    {"logtide_bool",
     "-- A JSON value as a boolean when it is one, else NULL.\n"
     "CREATE OR REPLACE TEMP MACRO logtide_bool(j) AS CASE WHEN json_type(j) = 'BOOLEAN' THEN "
     "CAST(j AS BOOLEAN) END;\n"},
    {"logtide_finite",
     "-- An arithmetic result, NULL when it is not finite (a division by zero, an overflow), as "
     "logtide's.\n"
     "CREATE OR REPLACE TEMP MACRO logtide_finite(x) AS CASE WHEN isfinite(x) THEN x END;\n"},
    {"logtide_substr",
     "-- substr(s, start, len) as logtide's: code points from 0, a negative start counts from the "
     "end; a start\n-- or len that is not an integer, or a negative len, gives NULL.\n"
     "CREATE OR REPLACE TEMP MACRO logtide_is_int(x) AS\n"
     "  x = trunc(x) AND x >= -9223372036854775808.0 AND x < 9223372036854775808.0;\n"
     "CREATE OR REPLACE TEMP MACRO logtide_substr_from(s, start) AS\n"
     "  CASE WHEN start < 0 THEN greatest(0, length(s) + start) ELSE least(start, length(s)) END;\n"
     "CREATE OR REPLACE TEMP MACRO logtide_substr(s, start, len) AS\n"
     "  CASE WHEN logtide_is_int(start) AND logtide_is_int(len) AND len >= 0\n"
     "       THEN substring(s, CAST(logtide_substr_from(s, start) AS BIGINT) + 1,\n"
     "                      CAST(least(length(s) - logtide_substr_from(s, start), len) AS BIGINT)) "
     "END;\n"},
    {"logtide_rfc3339_ns",
     "-- An RFC 3339 string as nanoseconds since 1970; NULL (a bad line) for anything else.\n"
     "CREATE OR REPLACE TEMP MACRO logtide_rfc3339_ns(j) AS\n"
     "  CASE WHEN json_type(j) = 'VARCHAR' THEN epoch_ns(TRY_CAST(upper(j->>'$') AS TIMESTAMP_NS)) "
     "END;\n"},
    {"logtide_epoch_ns",
     "-- A JSON number of units (unit: nanoseconds per unit) as nanoseconds since 1970; "
     "integers\n-- exactly, numbers with a fraction as doubles (DuckDB reads those as doubles).\n"
     "CREATE OR REPLACE TEMP MACRO logtide_epoch_ns(j, unit) AS\n"
     "  CASE json_type(j) WHEN 'DOUBLE' THEN CAST(floor(CAST(j AS DOUBLE) * unit) AS BIGINT)\n"
     "                    WHEN 'BIGINT' THEN CAST(CAST(j AS HUGEINT) * unit AS BIGINT)\n"
     "                    WHEN 'UBIGINT' THEN CAST(CAST(j AS HUGEINT) * unit AS BIGINT) END;\n"},
    {"logtide_local",
     "-- The local wall-clock time in zone z at instant s (seconds since 1970), as seconds since "
     "1970-01-01\n-- 00:00 local time (DuckDB's ICU time zones; the one conversion the zone is "
     "read through).\n"
     "CREATE OR REPLACE TEMP MACRO logtide_local(s, z) AS CAST(epoch(timezone(z, "
     "to_timestamp(s))) AS BIGINT);\n"
     "-- Local time l read with the UTC offset in force one day before it (c1) and one day after "
     "it (c2):\n-- where the offset changes at most once in two days, every instant whose local "
     "time is l is one\n-- of them.\n"
     "CREATE OR REPLACE TEMP MACRO logtide_c1(l, z) AS 2 * l - 86400 - logtide_local(l - 86400, "
     "z);\n"
     "CREATE OR REPLACE TEMP MACRO logtide_c2(l, z) AS 2 * l + 86400 - logtide_local(l + 86400, "
     "z);\n"
     "-- The instant of local time l: the earlier of two where a fall-back change repeats it, "
     "NULL where\n-- a spring-forward change skips it.\n"
     "CREATE OR REPLACE TEMP MACRO logtide_instant_of(l, c1, c2, z) AS\n"
     "  CASE WHEN logtide_local(c1, z) = l AND logtide_local(c2, z) = l THEN least(c1, c2)\n"
     "       WHEN logtide_local(c1, z) = l THEN c1 WHEN logtide_local(c2, z) = l THEN c2 END;\n"
     "CREATE OR REPLACE TEMP MACRO logtide_local_instant(l, z) AS\n"
     "  logtide_instant_of(l, logtide_c1(l, z), logtide_c2(l, z), z);\n"},
    {"logtide_local_time",
     "-- Nanoseconds since 1970 as logtide writes a time with --local-times: the local time in "
     "zone z with\n-- its UTC offset (+hh:mm, seconds of the offset dropped, +00:00 under a "
     "minute), the fraction as\n-- logtide_time writes it.\n"
     "CREATE OR REPLACE TEMP MACRO logtide_offset_text(o) AS\n"
     "  CASE WHEN o <= -60 THEN '-' ELSE '+' END || printf('%02d:%02d', abs(o) // 3600, abs(o) "
     "// 60 % 60);\n"
     "CREATE OR REPLACE TEMP MACRO logtide_local_time(ns, z) AS\n"
     "  strftime(make_timestamp(logtide_local(logtide_floor(ns, 1000000000) // 1000000000, z) * "
     "1000000),\n           '%Y-%m-%dT%H:%M:%S')\n"
     "  || substr(logtide_time(ns), 20, length(logtide_time(ns)) - 20)\n"
     "  || logtide_offset_text(logtide_local(logtide_floor(ns, 1000000000) // 1000000000, z)\n"
     "                         - logtide_floor(ns, 1000000000) // 1000000000);\n"},
    {"logtide_first_instant",
     "-- The first instant at which zone z's clock shows local time l or later: its instant, the "
     "earlier\n-- where l is repeated; where it is skipped, the change, in (c2, c1]: c1 when the "
     "second before it\n-- is still before l, else the first second of that range whose clock is "
     "at l or past it.\n"
     "CREATE OR REPLACE TEMP MACRO logtide_skipped_instant(l, c1, c2, z) AS\n"
     "  CASE WHEN logtide_local(c1 - 1, z) < l THEN c1\n"
     "       ELSE list_min(list_filter(range(c2 + 1, c1), x -> logtide_local(x, z) >= l)) END;\n"
     "CREATE OR REPLACE TEMP MACRO logtide_first_instant(l, z) AS\n"
     "  COALESCE(logtide_local_instant(l, z),\n"
     "           logtide_skipped_instant(l, logtide_c1(l, z), logtide_c2(l, z), z));\n"},
    {"logtide_month",
     "-- The months since 1970-01 of local time l, and the local time of the first of month m.\n"
     "CREATE OR REPLACE TEMP MACRO logtide_month_of(l) AS\n"
     "  (year(make_timestamp(l * 1000000)) - 1970) * 12 + month(make_timestamp(l * 1000000)) - "
     "1;\n"
     "CREATE OR REPLACE TEMP MACRO logtide_month_start(m) AS CAST(epoch(make_timestamp(\n"
     "  1970 + (m - ((m % 12) + 12) % 12) // 12, ((m % 12) + 12) % 12 + 1, 1, 0, 0, 0)) AS "
     "BIGINT);\n"},
    {"logtide_zoned_ns",
     "-- With --tz: an RFC 3339 time with no UTC offset, read as UTC (u, nanoseconds), is a local "
     "time in\n-- zone z: its instant, the earlier where it is repeated, NULL (a bad line) where "
     "it is skipped.\n"
     "CREATE OR REPLACE TEMP MACRO logtide_zoned_ns(u, z) AS\n"
     "  1000000000 * logtide_local_instant(logtide_floor(u, 1000000000) // 1000000000, z)\n"
     "  + (u - logtide_floor(u, 1000000000));\n"},
    {"logtide_key_order",
     "-- A sort key that orders JSON values as logtide does: null < false < true < numbers (by "
     "value)\n-- < strings (by bytes) < objects and arrays (by text).\n"
     "CREATE OR REPLACE TEMP MACRO logtide_key_order(k) AS {\n"
     "  'type': CASE WHEN k IS NULL THEN 0\n"
     "               WHEN json_type(k) = 'BOOLEAN' THEN CASE WHEN CAST(k AS VARCHAR) = 'true' "
     "THEN 2 ELSE 1 END\n"
     "               WHEN logtide_is_number(k) THEN 3 WHEN json_type(k) = 'VARCHAR' THEN 4 "
     "ELSE 5 END,\n"
     "  'number': COALESCE(logtide_double(k), 0),\n"
     "  'text': COALESCE(CASE WHEN json_type(k) = 'VARCHAR' THEN k->>'$' ELSE CAST(k AS VARCHAR) "
     "END, '')};\n"},
};

// Returns the DuckDB type read_ndjson reads `f` as.
std::string ColumnType(const SourceField& f) {
  switch (f.use) {
    case FieldUse::kNumber:
      return "DOUBLE";
    case FieldUse::kTime:
    case FieldUse::kAny:
    case FieldUse::kArray:  // its elements: json_extract with an index, which also gives NULL
                            // past the end and on a value that is not an array, as logtide
      return "JSON";
    case FieldUse::kRecord:
      break;
  }
  std::string s = "STRUCT(";
  for (size_t i = 0; i < f.children.size(); ++i) {
    s += (i ? ", " : "") + DoubleQuotedIdent(f.children[i].segment.key) + " " +
         ColumnType(f.children[i]);
  }
  return s + ")";
}

// The largest offset + k * n <= x, in SQL: logtide_floor of x, or of x moved by the grid's
// offset and moved back.
std::string GridFloor(const std::string& x, Nanos n, Nanos offset) {
  if (offset == 0) return fmt::format("logtide_floor({}, {})", x, n);
  return fmt::format("logtide_floor({} - {}, {}) + {}", x, offset, n, offset);
}

// The tumbling grid's words: "" or "offset (21600000000000 ns) plus a ".
std::string OffsetWords(const WindowSpec& w) {
  if (w.offset == 0) return "";
  return fmt::format("offset ({}, {} ns) plus a ", FormatDuration(w.offset), w.offset);
}

class Renderer : private SqlExprWriter {
 public:
  explicit Renderer(const QueryPlan& p) : p_(p) {}

  std::string Render();

 private:
  // SqlExprWriter: fields are JSON values, typed by json_type.
  std::string Field(const FieldPath& path) override {
    // A --having field: a column of the records (one key, its name), as JSON.
    if (records_) return "to_json(records." + DoubleQuotedIdent(path[0].key) + ")";
    bool json, extracted;
    return Access(path, &json, &extracted);
  }
  std::string Present(const std::string& f) override {
    return Use("logtide_kind") + "(" + f + ") IS NOT NULL";
  }
  std::string KindIs(const std::string& f, Kind k) override {
    static constexpr const char* kNames[] = {"number", "string", "boolean", "other"};
    return fmt::format("{}({}) = '{}'", Use("logtide_kind"), f, kNames[static_cast<int>(k)]);
  }
  std::string FieldAs(const std::string& f, Type t) override {
    switch (t) {
      case Type::kNumber:
        Use("logtide_is_number");
        return Use("logtide_double") + "(" + f + ")";
      case Type::kString:
        return Use("logtide_string") + "(" + f + ")";
      case Type::kBool:
        return Use("logtide_bool") + "(" + f + ")";
      default:
        return Null(t);
    }
  }
  std::string TypeName(Type t) override {
    return t == Type::kBool ? "BOOLEAN" : t == Type::kNumber ? "DOUBLE" : "VARCHAR";
  }
  std::string ToAny(const std::string& v, Type) override { return "to_json(" + v + ")"; }
  std::string Arith(Op op, const std::string& a, const std::string& b, bool) override {
    static constexpr const char* kOps[] = {"+", "-", "*", "/", "%"};
    return fmt::format("{}({} {} {})", Use("logtide_finite"), a,
                       kOps[static_cast<int>(op) - static_cast<int>(Op::kAdd)], b);
  }
  std::string Call(const PlanExpr& e, const std::vector<std::string>& a) override;
  // A derived key's value as JSON, as logtide writes it.
  std::string KeyValue(const PlanExpr& e);

  // The expression for a field: struct access down the records, then json_extract inside a
  // field read as JSON. *json says whether it is JSON (else DOUBLE); *extracted whether it came
  // out of json_extract (where JSON null is not SQL NULL).
  std::string Access(const FieldPath& path, bool* json, bool* extracted) const;
  std::string JsonValue(const FieldPath& path);
  std::string NumberValue(const FieldPath& path);
  std::string TimeNs();
  // An RFC 3339 string as nanoseconds; with --tz, one with no UTC offset is a local time.
  std::string Rfc3339Ns(const std::string& j);
  // The zone of calendar windows and local times, as an SQL string.
  std::string Zone() const { return SqlString(p_.window.zone.name()); }
  // The calendar window's local bound k windows after the one at or before local time x
  // (seconds since 1970-01-01 00:00 local time, less the grid's offset).
  std::string CalendarBound(const std::string& x, int k);
  // Writes the CTEs that give each event its calendar window, start_ns and end_ns.
  void CalendarWindows(std::string* q);
  // `filter`: the column of a filter aggregate's condition, or empty.
  std::string AggExpr(const PlanAggregate& a, const std::string& col, const std::string& filter);
  std::string Use(const char* macro) {
    used_.insert(macro);
    return macro;
  }

  const QueryPlan& p_;
  std::set<std::string> used_;
  bool records_ = false;  // rendering --having: fields are the records' columns
};

// Returns `path` as a DuckDB JSON path: keys quoted, a quote or backslash in them escaped with
// a backslash; indices from the start as [N], from the end as [#-N] (-1: the last).
std::string JsonPath(const FieldPath& path) {
  std::string out = "$";
  for (const PathSegment& seg : path) {
    if (seg.is_index) {
      out += seg.index >= 0 ? fmt::format("[{}]", seg.index) : fmt::format("[#{}]", seg.index);
      continue;
    }
    out += ".\"";
    for (char c : seg.key) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out;
}

std::string Renderer::Access(const FieldPath& path, bool* json, bool* extracted) const {
  // Arrays are read whole, as JSON: a record's field is never an element.
  const FieldColumn c = FindColumn(p_.fields, path, /*elements=*/false);
  std::string sql;
  for (size_t i = 0; i < c.columns.size(); ++i)
    sql += (i ? "." : "") + DoubleQuotedIdent(c.columns[i].key);
  *extracted = !c.inside.empty();
  *json = *extracted || c.field->use != FieldUse::kNumber;
  if (!*extracted) return sql;
  // Inside a field read as JSON: the rest of the path is a JSON path.
  return "json_extract(" + sql + ", " + SqlString(JsonPath(c.inside)) + ")";
}

std::string Renderer::Call(const PlanExpr& e, const std::vector<std::string>& a) {
  constexpr const char* kUpper = "'ABCDEFGHIJKLMNOPQRSTUVWXYZ'";
  constexpr const char* kLower = "'abcdefghijklmnopqrstuvwxyz'";
  switch (e.op) {
    case Op::kStartsWith:
      return "starts_with(" + a[0] + ", " + a[1] + ")";
    case Op::kEndsWith:
      return "ends_with(" + a[0] + ", " + a[1] + ")";
    case Op::kContains:
      return "contains(" + a[0] + ", " + a[1] + ")";
    case Op::kMatches:  // RE2, as logtide's, matching anywhere in the string
      return "regexp_matches(" + a[0] + ", " + SqlString(e.pattern) + ")";
    case Op::kFloor:
      return "floor(" + a[0] + ")";
    case Op::kCeil:
      return "ceil(" + a[0] + ")";
    case Op::kRound:  // halves away from zero on doubles, as logtide's; with digits, as
                      // logtide's: x * 10^digits rounded, divided back
      if (a.size() > 1) return fmt::format("round({}, {})", a[0], e.args[1].literal.i);
      return "round(" + a[0] + ")";
    case Op::kAbs:
      return "abs(" + a[0] + ")";
    case Op::kLower:  // ASCII letters only, as logtide's (DuckDB's lower changes every letter)
      return fmt::format("translate({}, {}, {})", a[0], kUpper, kLower);
    case Op::kUpper:
      return fmt::format("translate({}, {}, {})", a[0], kLower, kUpper);
    case Op::kLen:  // code points
      return "length(" + a[0] + ")";
    case Op::kSubstr:
      Use("logtide_substr");
      return fmt::format("logtide_substr({}, {}, {})", a[0], a[1],
                         a.size() > 2 ? a[2] : "length(" + a[0] + ")");
    case Op::kRegexpReplace:  // RE2 and its rewrite syntax, as logtide's; 'g': every match
      return fmt::format("regexp_replace({}, {}, {}, 'g')", a[0], a[1], a[2]);
    case Op::kRegexpExtract: {  // RE2; DuckDB gives '' where logtide finds no match (null)
      const int64_t group = e.args.size() > 2 ? e.args[2].literal.i : 0;
      return fmt::format("CASE WHEN regexp_matches({0}, {1}) THEN regexp_extract({0}, {1}, {2}) END",
                         a[0], a[1], group);
    }
    case Op::kSplitPart: {
      // Fields split left to right, a negative index from the end, past the end NULL (logtide:
      // ''); an empty separator is one field (string_split would split every character).
      const int64_t field = e.args[2].literal.i;
      return fmt::format("CASE WHEN {0} IS NULL OR {1} IS NULL THEN NULL WHEN {1} = '' THEN {2} "
                         "ELSE COALESCE(string_split({0}, {1})[{3}], '') END",
                         a[0], a[1], field == 1 || field == -1 ? a[0] : "''", field);
    }
    case Op::kConcat: {  // || is null when an operand is, as logtide's concat
      std::string s = "(" + a[0];
      for (size_t i = 1; i < a.size(); ++i) s += " || " + a[i];
      return s + ")";
    }
    default:
      return "";
  }
}

std::string Renderer::KeyValue(const PlanExpr& e) {
  switch (e.type) {
    case Type::kAny:
      return Use("logtide_value") + "(" + Any(e) + ")";
    case Type::kNull:
      return "CAST(NULL AS JSON)";
    case Type::kNumber:
      // An integral number as an integer, as logtide writes it.
      return Use("logtide_value") + "(to_json(" + As(e, Type::kNumber) + "))";
    default:
      return "to_json(" + As(e, e.type) + ")";
  }
}

std::string Renderer::JsonValue(const FieldPath& path) {
  bool json, extracted;
  return Use("logtide_value") + "(" + Access(path, &json, &extracted) + ")";
}

std::string Renderer::NumberValue(const FieldPath& path) {
  bool json, extracted;
  std::string sql = Access(path, &json, &extracted);
  if (!json) return sql;
  Use("logtide_is_number");
  return Use("logtide_double") + "(" + sql + ")";
}

std::string Renderer::Rfc3339Ns(const std::string& j) {
  Use("logtide_rfc3339_ns");
  if (!p_.window.has_zone) return "logtide_rfc3339_ns(" + j + ")";
  Use("logtide_floor");
  Use("logtide_local");
  Use("logtide_zoned_ns");
  return fmt::format(
      "CASE WHEN regexp_full_match({0}->>'$', '[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}[Tt ][0-9]{{2}}:"
      "[0-9]{{2}}:[0-9]{{2}}(\\.[0-9]+)?')\n"
      "              THEN logtide_zoned_ns(epoch_ns(TRY_CAST(upper({0}->>'$') AS TIMESTAMP_NS)), "
      "{1})\n"
      "              ELSE logtide_rfc3339_ns({0}) END",
      j, Zone());
}

std::string Renderer::CalendarBound(const std::string& x, int k) {
  const WindowSpec& w = p_.window;
  auto plus = [](int64_t n) { return n == 0 ? std::string() : fmt::format(" + {}", n); };
  switch (w.calendar) {
    case WindowSpec::Calendar::kDays:
      return fmt::format("logtide_floor({}, {}){}", x, 86400 * w.count, plus(k * 86400 * w.count));
    case WindowSpec::Calendar::kWeeks:  // from Monday 1969-12-29, 3 days before 1970
      return fmt::format("logtide_floor({} + 259200, {}) - 259200{}", x, 604800 * w.count,
                         plus(k * 604800 * w.count));
    case WindowSpec::Calendar::kMonths:
      Use("logtide_month");
      return fmt::format("logtide_month_start(logtide_floor(logtide_month_of({}), {}){})", x,
                         w.count, plus(k * w.count));
    case WindowSpec::Calendar::kWallClock: {
      const int64_t step = w.size / kNanosPerSecond;  // divides a day: from each local midnight
      return fmt::format("logtide_floor({}, {}){}", x, step, plus(k * step));
    }
    case WindowSpec::Calendar::kLocalGrid:
    case WindowSpec::Calendar::kNone:
      return fmt::format("logtide_floor({}, 86400){}", x, plus(k * int64_t{86400}));
  }
  return "";
}

void Renderer::CalendarWindows(std::string* q) {
  const WindowSpec& w = p_.window;
  Use("logtide_floor");
  Use("logtide_local");
  Use("logtide_first_instant");
  const int64_t offset_s = w.offset / kNanosPerSecond;  // a calendar offset is whole seconds
  const std::string off = offset_s == 0 ? "" : fmt::format(" + {}", offset_s);
  const bool grid = w.calendar == WindowSpec::Calendar::kLocalGrid;
  auto bound = [&](int k) {
    return fmt::format("1000000000 * logtide_first_instant({}{}, {})", CalendarBound("local_s", k),
                       off, Zone());
  };
  fmt::format_to(
      std::back_inserter(*q),
      "-- Calendar windows: {}{} in {}.\n-- Each bound is a local wall-clock time, taken as "
      "the first instant the local clock shows it or\n-- later; local times are seconds since "
      "1970-01-01 00:00 local time.\n"
      "local_times AS (\n"
      "  SELECT *, logtide_local(logtide_floor(event_ns, 1000000000) // 1000000000, {}){} AS "
      "local_s\n"
      "  FROM events WHERE event_ns IS NOT NULL  -- no usable time: a bad line\n"
      "),\n"
      "-- The instants of the bounds of the window holding each event's local time{}.\n"
      "local_bounds AS (\n"
      "  SELECT *, {} AS lo_ns,\n"
      "    {} AS hi_ns\n"
      "  FROM local_times\n"
      "),\n"
      "-- Where a fall-back change took the clock back across the end before the event, the "
      "event is in\n-- the next window.\n"
      "{} AS (\n"
      "  SELECT *, CASE WHEN event_ns < hi_ns THEN lo_ns ELSE hi_ns END AS {},\n"
      "    CASE WHEN event_ns < hi_ns THEN hi_ns ELSE {} END AS {}\n"
      "  FROM local_bounds\n"
      ")",
      CalendarWindowText(w),
      w.offset == 0 ? "" : ", offset by " + FormatSignedDuration(w.offset) + " of local time",
      VisibleText(w.zone.name()), Zone(), offset_s == 0 ? "" : fmt::format(" - {}", offset_s),
      offset_s == 0 ? "" : " (less the offset)", bound(0), bound(1),
      grid ? "local_days" : "windowed", grid ? "day_start_ns" : "start_ns", bound(2),
      grid ? "day_end_ns" : "end_ns");
  if (grid) {
    fmt::format_to(std::back_inserter(*q),
                   ",\n-- Windows of {} ({} ns) from each local midnight, the last one of a day "
                   "cut at the next.\n"
                   "windowed AS (\n"
                   "  SELECT *, day_start_ns + logtide_floor(event_ns - day_start_ns, {}) AS "
                   "start_ns,\n"
                   "    least(day_start_ns + logtide_floor(event_ns - day_start_ns, {}) + {}, "
                   "day_end_ns) AS end_ns\n"
                   "  FROM local_days\n"
                   ")",
                   FormatDuration(w.size), w.size, w.size, w.size, w.size);
  }
  *q += "\n";
}

std::string Renderer::TimeNs() {
  bool json, extracted;
  const std::string j = Access(p_.time.path, &json, &extracted);
  switch (p_.time.kind) {
    case PlanTime::Kind::kRfc3339:
      return Rfc3339Ns(j);
    case PlanTime::Kind::kEpoch:
      return fmt::format("{}({}, {})", Use("logtide_epoch_ns"), j, p_.time.epoch_unit);
    case PlanTime::Kind::kAuto:
      Use("logtide_rfc3339_ns");
      Use("logtide_epoch_ns");
      Use("logtide_is_number");
      Use("logtide_double");
      // Epoch numbers: the unit by magnitude, as --time-format auto guesses it.
      return fmt::format(
          "CASE WHEN json_type({0}) = 'VARCHAR' THEN {1}\n"
          "         WHEN abs(logtide_double({0})) < 1e11 THEN logtide_epoch_ns({0}, 1000000000)\n"
          "         WHEN abs(logtide_double({0})) < 1e14 THEN logtide_epoch_ns({0}, 1000000)\n"
          "         WHEN abs(logtide_double({0})) < 1e17 THEN logtide_epoch_ns({0}, 1000)\n"
          "         ELSE logtide_epoch_ns({0}, 1) END",
          j, Rfc3339Ns(j));
    case PlanTime::Kind::kPattern: {
      // Untranslated() refused a pattern the translation cannot take.
      SqlTimePattern duckdb;
      (void)TranslateTimePattern(p_.time.pattern, SqlDialect::kDuckDb, &duckdb);
      return fmt::format("epoch_ns(try_strptime({}->>'$', {}))", j, SqlString(duckdb.text));
    }
  }
  return "";
}

std::string Renderer::AggExpr(const PlanAggregate& a, const std::string& col,
                              const std::string& filter) {
  const std::string only = filter.empty() ? "" : " FILTER (WHERE " + filter + ")";
  switch (a.spec.kind) {
    case AggKind::kCount:
      return "count(*)" + only;
    case AggKind::kCountField:
      return "count(" + col + ")" + only;
    case AggKind::kSum:
      return "sum(" + col + ")" + only;
    case AggKind::kMin:
      return "min(" + col + ")" + only;
    case AggKind::kMax:
      return "max(" + col + ")" + only;
    case AggKind::kAvg:
      return "avg(" + col + ")" + only;
    case AggKind::kCountDistinct:
      return "count(DISTINCT " + col + ")" + only;
    case AggKind::kFirst:
    case AggKind::kLast:
      return fmt::format("{}({}, (event_ns, line)) FILTER (WHERE {} IS NOT NULL{})",
                         a.spec.kind == AggKind::kFirst ? "arg_min" : "arg_max", col, col,
                         filter.empty() ? "" : " AND " + filter);
    case AggKind::kQuantile:
      return fmt::format("quantile_disc({}, {}){}", col, a.spec.q, only);
    case AggKind::kApproxDistinct:
      // Exact: logtide's is too up to 1024 values, and DuckDB's approx_count_distinct is not
      // even on a few values (3 for 5).
      return "count(DISTINCT " + col + ")" + only;
    case AggKind::kTopK:
      Use("logtide_key_order");
      Use("logtide_is_number");
      Use("logtide_double");
      // The values' counts (histogram), largest count first and ties in key order, as
      // [{"value","count","error"}]; [] when there is no value.
      return fmt::format(
          "COALESCE(to_json(list_transform(list_slice(list_sort(list_transform(\n"
          "      map_entries(histogram({}){}),\n"
          "      e -> {{'count': -CAST(e.value AS BIGINT), 'order': logtide_key_order(e.key), "
          "'value': e.key}})), 1, {}),\n"
          "      e -> {{'value': e.value, 'count': -e.count, 'error': 0}})), '[]'::JSON)",
          col, only, a.spec.k);
  }
  return "";
}

std::string Renderer::Render() {
  std::string q;  // the query, after the macros
  auto out = std::back_inserter(q);
  const WindowSpec& w = p_.window;

  // events: one row per line with a usable time; its columns are the time, the keys and the
  // aggregates' inputs.
  std::vector<std::string> key_cols, agg_cols;
  q += "WITH events AS (\n  SELECT\n    " + TimeNs() + " AS event_ns";
  for (size_t i = 0; i < p_.keys.size(); ++i) {
    key_cols.push_back(DoubleQuotedIdent(fmt::format("key_{}", i + 1)));
    const bool derived = p_.key_paths[i].empty();
    q += ",\n";
    if (derived) q += SqlComment(VisibleText(p_.keys[i] + "=" + p_.key_exprs[i].text), "    ");
    q += "    " + (derived ? KeyValue(p_.key_exprs[i]) : JsonValue(p_.key_paths[i])) + " AS " +
         key_cols.back();
  }
  for (size_t i = 0; i < p_.aggs.size(); ++i) {
    const PlanAggregate& a = p_.aggs[i];
    agg_cols.push_back(DoubleQuotedIdent(fmt::format("value_{}", i + 1)));
    if (a.spec.kind == AggKind::kCount) continue;
    const bool numeric = a.spec.kind == AggKind::kSum || a.spec.kind == AggKind::kMin ||
                         a.spec.kind == AggKind::kMax || a.spec.kind == AggKind::kAvg ||
                         a.spec.kind == AggKind::kQuantile;
    q += ",\n    " + (numeric ? NumberValue(a.path) : JsonValue(a.path)) + " AS " + agg_cols.back();
  }
  // A filter aggregate's condition: whether the event counts in it.
  std::vector<std::string> filter_cols(p_.aggs.size());
  for (size_t i = 0; i < p_.aggs.size(); ++i) {
    if (p_.aggs[i].filter.empty()) continue;
    filter_cols[i] = DoubleQuotedIdent(fmt::format("filter_{}", i + 1));
    q += ",\n" +
         SqlComment(VisibleText(p_.aggs[i].spec.name + " filter " + p_.aggs[i].filter[0].text),
                    "    ") +
         "    " + Bool(p_.aggs[i].filter[0]) + " AS " + filter_cols[i];
  }
  // first and last take, among events with the same time, the first and last read: the line's
  // place in the input (WITH ORDINALITY).
  bool first_last = false;
  for (const PlanAggregate& a : p_.aggs) {
    first_last |= a.spec.kind == AggKind::kFirst || a.spec.kind == AggKind::kLast;
  }
  if (first_last)
    q += ",\n    ordinality AS line  -- the place in the input, for ties of first and last";
  std::string files;
  for (size_t i = 0; i < p_.inputs.size(); ++i) {
    files += (i ? ", " : "") + SqlString(p_.inputs[i] == "-" ? "/dev/stdin" : p_.inputs[i]);
  }
  std::string columns;
  for (size_t i = 0; i < p_.fields.size(); ++i) {
    columns += (i ? ", " : "") + DoubleQuotedIdent(p_.fields[i].segment.key) + ": " +
               SqlString(ColumnType(p_.fields[i]));
  }
  std::string where;
  for (const PlanExpr& w : p_.where) {
    where += (where.empty() ? "\n  -- --where: events for which every condition is true.\n  WHERE "
                            : "\n    AND ") +
             Bool(w) + "  -- " + VisibleText(w.text);
  }
  fmt::format_to(out,
                 "\n  -- Lines that are not JSON objects, and fields of another type than "
                 "declared, read as NULL.\n"
                 "  FROM read_ndjson([{}],\n"
                 "                   columns = {{{}}},\n"
                 "                   format = 'newline_delimited', ignore_errors = true){}{}\n"
                 "),\n",
                 files, columns, first_last ? " WITH ORDINALITY" : "", where);

  std::string keys_list;
  for (const std::string& k : key_cols) keys_list += ", " + k;
  const std::string partition = key_cols.empty() ? "" : "PARTITION BY " + keys_list.substr(2) + " ";
  std::string start, end;  // nanosecond expressions of the output row's window
  std::string group;
  Use("logtide_time");
  switch (w.kind) {
    case WindowSpec::Kind::kTumbling:
      if (w.is_calendar()) {
        CalendarWindows(&q);
        start = "start_ns";
        end = "end_ns";
        group = "start_ns, end_ns" + keys_list;
        break;
      }
      Use("logtide_floor");
      fmt::format_to(out,
                     "-- Tumbling windows of {} ({} ns): each event in the one window starting "
                     "at the\n-- {}multiple of the size at or before it.\n"
                     "windowed AS (\n"
                     "  SELECT *, {} AS start_ns\n"
                     "  FROM events WHERE event_ns IS NOT NULL  -- no usable time: a bad line\n"
                     ")\n",
                     FormatDuration(w.size), w.size, OffsetWords(w),
                     GridFloor("event_ns", w.size, w.offset));
      start = "start_ns";
      end = fmt::format("start_ns + {}", w.size);
      group = "start_ns" + keys_list;
      break;
    case WindowSpec::Kind::kSliding:
      Use("logtide_floor");
      fmt::format_to(out,
                     "-- Sliding windows of {} ({} ns) starting every {} ({} ns){}: each event in "
                     "every\n-- window with start <= t < start + size.\n"
                     "windowed AS (\n"
                     "  SELECT *, unnest(generate_series({} + {}, "
                     "{}, {})) AS start_ns\n"
                     "  FROM events WHERE event_ns IS NOT NULL  -- no usable time: a bad line\n"
                     ")\n",
                     FormatDuration(w.size), w.size, FormatDuration(w.slide), w.slide,
                     w.offset == 0 ? std::string()
                                   : fmt::format(" from {} ns after each multiple", w.offset),
                     GridFloor(fmt::format("event_ns - {}", w.size), w.slide, w.offset), w.slide,
                     GridFloor("event_ns", w.slide, w.offset), w.slide);
      start = "start_ns";
      end = fmt::format("start_ns + {}", w.size);
      group = "start_ns" + keys_list;
      break;
    case WindowSpec::Kind::kSession:
      fmt::format_to(out,
                     "-- Sessions (gaps and islands): per key, an event more than {} ({} ns) "
                     "after the one\n-- before it starts a session, which ends {} after its "
                     "last event.\n"
                     "marked AS (\n"
                     "  SELECT *, CASE WHEN event_ns - lag(event_ns) OVER ({}ORDER BY event_ns) "
                     "<= {} THEN 0 ELSE 1 END AS new_session\n"
                     "  FROM events WHERE event_ns IS NOT NULL  -- no usable time: a bad line\n"
                     "),\n"
                     "windowed AS (\n"
                     "  SELECT *, sum(new_session) OVER ({}ORDER BY event_ns ROWS UNBOUNDED "
                     "PRECEDING) AS session\n"
                     "  FROM marked\n"
                     ")\n",
                     FormatDuration(w.gap), w.gap, FormatDuration(w.gap), partition, w.gap,
                     partition);
      start = "min(event_ns)";
      end = fmt::format("max(event_ns) + {}", w.gap);
      group = "session" + keys_list;
      break;
  }

  // --having: the records as a subquery, filtered over their columns and sorted by hidden
  // ones (the order's terms read the windows' columns, which the records do not have).
  const bool having = !p_.having.empty();
  std::vector<std::string> hidden = {"\"logtide:end\"", "\"logtide:start\""};
  for (size_t i = 0; i < key_cols.size(); ++i)
    hidden.push_back(DoubleQuotedIdent(fmt::format("logtide:key_{}", i + 1)));
  if (having) {
    q += "SELECT * EXCLUDE (";
    for (size_t i = 0; i < hidden.size(); ++i) q += (i ? ", " : "") + hidden[i];
    q += ") FROM (\n";
  }
  // --local-times: the bounds in the zone's local time with its offset.
  auto bound_text = [&](const std::string& ns) {
    if (!p_.local_times) return "logtide_time(" + ns + ")";
    Use("logtide_floor");
    Use("logtide_local");
    Use("logtide_local_time");
    return "logtide_local_time(" + ns + ", " + Zone() + ")";
  };
  fmt::format_to(out, "SELECT\n  {} AS \"window_start\",\n  {} AS \"window_end\"",
                 bound_text(start), bound_text(end));
  for (size_t i = 0; i < key_cols.size(); ++i) {
    q += ",\n  " + key_cols[i] + " AS " + DoubleQuotedIdent(p_.keys[i]);
  }
  for (size_t i = 0; i < p_.aggs.size(); ++i) {
    const PlanAggregate& a = p_.aggs[i];
    q += ",\n";
    if (!a.duckdb_note.empty()) q += SqlComment(a.duckdb_note, "  ");
    q += "  " + AggExpr(a, agg_cols[i], filter_cols[i]) + " AS " + DoubleQuotedIdent(a.spec.name);
  }
  // Under --having only final records are written: with lateness, the closing one.
  if (p_.emit == EmitMode::kUpdate && having && p_.lateness > 0)
    q += ",\n  1 AS \"revision\",\n  'late' AS \"phase\",\n  true AS \"final\"";
  else if (p_.emit == EmitMode::kUpdate)
    q += fmt::format(",\n  0 AS \"revision\",\n  'on_time' AS \"phase\",\n  {} AS \"final\"",
                     p_.lateness == 0 ? "true" : "false");
  std::vector<std::string> order_terms = {end, start};
  for (const std::string& k : key_cols)
    order_terms.push_back(Use("logtide_key_order") + "(" + k + ")");
  if (!key_cols.empty()) {
    Use("logtide_is_number");
    Use("logtide_double");
  }
  std::string order;
  if (having) {
    for (size_t i = 0; i < order_terms.size(); ++i) {
      q += ",\n  " + order_terms[i] + " AS " + hidden[i];
      order += (i ? ", " : "") + hidden[i];
    }
  } else {
    for (size_t i = 0; i < order_terms.size(); ++i) order += (i ? ", " : "") + order_terms[i];
  }
  fmt::format_to(out, "\nFROM windowed\nGROUP BY {}\n", group);
  if (having) {
    // Each record's columns as JSON, so that the expression types them as logtide does.
    records_ = true;
    std::string where;
    for (const PlanExpr& h : p_.having) {
      where += where.empty() ? "" : "\n  AND\n";
      where += SqlComment(VisibleText("--having " + h.text), "  ") + "  " + Bool(h);
    }
    records_ = false;
    fmt::format_to(out,
                   ") AS records\n-- --having: records for which every condition is true.\n"
                   "WHERE\n{}\n",
                   where);
  }
  fmt::format_to(out,
                 "-- logtide's order when nothing is late: by window end, window start, then "
                 "key.\nORDER BY {};\n",
                 order);

  std::string s = SqlComment(
      "The query of\n  " + VisibleText(p_.command) +
      "\nas one DuckDB batch query (tested with DuckDB 1.5) over the same files: the records "
      "logtide writes when no event is late, with its columns, names and order. Run it with "
      "duckdb -f FILE. Event times are nanoseconds since 1970 (RFC 3339 times to the "
      "nanosecond; epoch numbers with a fraction as doubles). JSON numbers are read as "
      "doubles, so integer results come out as doubles; keys and first, last and top_k values "
      "come out as JSON. A batch query has no watermark: an event logtide drops as late (it "
      "comes after the watermark passed the end + lateness of its windows) counts here like any "
      "other." +
      (HasExpressions(p_)
           ? " Expressions compute with doubles: the same as logtide's exact integers below "
             "2^53; objects and arrays compare as their JSON text."
           : "") +
      (p_.window.has_zone || p_.window.is_calendar()
           ? " Calendar windows and local times come from DuckDB's own (ICU) time zone data: "
             "logtide's bounds where its rules for the zone are those of logtide's zone "
             "database."
           : "") +
      (p_.emit == EmitMode::kUpdate
           ? " In update mode this is revision 0 of each window, which logtide writes when "
             "the watermark passes the window's end: an event that comes after that (within "
             "--lateness) is counted here, where logtide writes a later revision." +
                 std::string(p_.lateness == 0
                                 ? ""
                                 : " logtide also closes each window with one more record "
                                   "(\"final\":true) when the watermark passes its end + "
                                   "--lateness, which this query does not give.")
           : "") +
      (p_.changes != ChangeFormat::kSnapshot
           ? std::string(" logtide writes these records as changes (--changes ") +
                 std::string(ChangeFormatName(p_.changes)) +
                 "): when no event is dropped as late, this query's rows hold the values of "
                 "the table a consumer has once it applied them all."
           : ""));
  s += "\n";
  for (const Macro& m : kMacros) {
    if (used_.count(m.name)) s += m.text;
  }
  return s + "\n" + q;
}

}  // namespace

std::string DuckDbSql(const QueryPlan& plan) { return Renderer(plan).Render(); }

}  // namespace logtide
