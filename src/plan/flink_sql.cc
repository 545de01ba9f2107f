#include "plan/flink_sql.h"

#include <fmt/format.h>

#include "plan/sql_expr.h"
#include "plan/sql_text.h"
#include "plan/time_pattern.h"
#include "time/duration.h"

namespace logtide {
namespace {

constexpr Nanos kMilli = 1'000'000;

// Returns `d` as a Flink SQL interval literal, in milliseconds (Flink's event-time precision):
// one unit (the largest that divides it) where its count has at most 2 digits, the default
// leading precision; otherwise fields from the largest unit whose count has 1 or 2 digits down
// to the smallest the value needs ('2:30' HOUR TO MINUTE), which every Flink SQL parser takes;
// past 99 days the leading precision spelled out (DAY(3)).
std::string Interval(Nanos d) {
  const int64_t ms = (d + kMilli - 1) / kMilli;  // a sub-millisecond rest rounds up
  struct Unit {
    int64_t ms;
    const char* name;
  };
  constexpr Unit kUnits[] = {
      {86'400'000, "DAY"}, {3'600'000, "HOUR"}, {60'000, "MINUTE"}, {1000, "SECOND"}};
  for (const Unit u : kUnits) {
    if (ms % u.ms != 0 || ms / u.ms > 99) continue;
    return fmt::format("INTERVAL '{}' {}", ms / u.ms, u.name);
  }
  if (ms < 1000) return fmt::format("INTERVAL '0.{:03}' SECOND", ms);
  size_t lead = 0;
  while (lead < 3 && ms / kUnits[lead].ms == 0) ++lead;
  if (lead == 3) return fmt::format("INTERVAL '{}.{:03}' SECOND", ms / 1000, ms % 1000);
  if (ms / kUnits[lead].ms <= 99) {
    size_t last = lead + 1;
    while (last < 3 && ms % kUnits[last].ms != 0) ++last;
    std::string text = std::to_string(ms / kUnits[lead].ms);
    for (size_t k = lead + 1; k <= last; ++k) {
      const int64_t field = ms % kUnits[k - 1].ms / kUnits[k].ms;
      text += fmt::format("{}{:02}", k == 1 ? ' ' : ':', field);
    }
    if (last == 3 && ms % 1000 != 0) text += fmt::format(".{:03}", ms % 1000);
    return fmt::format("INTERVAL '{}' {} TO {}", text, kUnits[lead].name, kUnits[last].name);
  }
  // 100 days or more.
  for (const Unit u : kUnits) {
    if (ms % u.ms != 0) continue;
    const std::string n = std::to_string(ms / u.ms);
    return fmt::format("INTERVAL '{}' {}({})", n, u.name, n.size());
  }
  const std::string secs = std::to_string(ms / 1000);
  return fmt::format("INTERVAL '{}.{:03}' SECOND({}, 3)", secs, ms % 1000, secs.size());
}

// Returns `d` as a Flink configuration duration ("5 min", "250 ms").
std::string ConfigDuration(Nanos d) {
  const int64_t ms = (d + kMilli - 1) / kMilli;
  if (ms % 3'600'000 == 0) return fmt::format("{} h", ms / 3'600'000);
  if (ms % 60'000 == 0) return fmt::format("{} min", ms / 60'000);
  if (ms % 1000 == 0) return fmt::format("{} s", ms / 1000);
  return fmt::format("{} ms", ms);
}

// The JSON text of a number, for telling numbers apart in a STRING column.
constexpr const char* kNumberText = "'^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$'";
// Text that is not a number, true, false, an object or an array: a string's.
constexpr const char* kStringText =
    "'^(-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$|true$|false$|[\\[{])'";

// Returns whether any of `fields`, or of the fields below them, is an array read by element.
bool HasArray(const std::vector<SourceField>& fields) {
  for (const SourceField& f : fields) {
    if (f.use == FieldUse::kArray || HasArray(f.children)) return true;
  }
  return false;
}

// Returns an RE2 rewrite (\0 to \9 the match and its groups, \\ a backslash) as a Java
// replacement ($0 to $9 the groups, a backslash escaping the next character).
std::string JavaReplacement(std::string_view rewrite) {
  std::string out;
  for (size_t i = 0; i < rewrite.size(); ++i) {
    const char c = rewrite[i];
    if (c == '\\' && i + 1 < rewrite.size()) {
      const char d = rewrite[++i];
      if (d >= '0' && d <= '9') {
        out += '$';
        out += d;
      } else {
        out += '\\';
        out += d;
      }
    } else if (c == '$') {
      out += "\\$";
    } else {
      out += c;
    }
  }
  return out;
}

// Returns whether `pred` holds for a node of `e`.
template <typename Pred>
bool ExprUses(const PlanExpr& e, const Pred& pred) {
  if (pred(e)) return true;
  for (const PlanExpr& a : e.args) {
    if (ExprUses(a, pred)) return true;
  }
  return false;
}

// Returns whether `pred` holds for a node of an expression of `p`: --where, a derived key or a
// filter.
template <typename Pred>
bool PlanUses(const QueryPlan& p, const Pred& pred) {
  for (const PlanExpr& e : p.where) {
    if (ExprUses(e, pred)) return true;
  }
  for (const PlanExpr& e : p.key_exprs) {
    if (ExprUses(e, pred)) return true;
  }
  for (const PlanAggregate& a : p.aggs) {
    for (const PlanExpr& e : a.filter) {
      if (ExprUses(e, pred)) return true;
    }
  }
  return false;
}

class Renderer : private SqlExprWriter {
 public:
  explicit Renderer(const QueryPlan& p) : p_(p) {}
  std::string Render();

 private:
  // SqlExprWriter: a field an expression reads is a STRING column, its value's text (Flink's
  // JSON format reads any value into a STRING), typed by what the text looks like.
  std::string Field(const FieldPath& path) override {
    return records_ ? RecordColumn(path[0].key) : Access(path);
  }
  // A --having field: the records' column `name` as the text an event's field would be.
  // REQUIRES: a key or an aggregate (Untranslated refuses the window bounds).
  std::string RecordColumn(const std::string& name) {
    std::string type = "STRING";
    for (size_t i = 0; i < p_.keys.size(); ++i) {
      if (p_.keys[i] == name) type = KeyType(i);
    }
    for (const PlanAggregate& a : p_.aggs) {
      if (a.spec.name == name) type = AggType(a);
    }
    const std::string col = "records." + BacktickIdent(name);
    if (type == "BOOLEAN") return ToAny(col, Type::kBool);
    if (type == "STRING") return col;
    return "CAST(" + col + " AS STRING)";
  }
  std::string Present(const std::string& f) override { return f + " IS NOT NULL"; }
  std::string KindIs(const std::string& f, Kind k) override {
    switch (k) {
      case Kind::kNumber:
        return fmt::format("REGEXP({}, {})", f, kNumberText);
      case Kind::kString:
        return fmt::format("NOT REGEXP({}, {})", f, kStringText);
      case Kind::kBool:
        return f + " IN ('true', 'false')";
      case Kind::kOther:
        break;
    }
    return fmt::format("REGEXP({}, '^[\\[{{]')", f);
  }
  std::string FieldAs(const std::string& f, Type t) override {
    switch (t) {
      case Type::kNumber:
        return fmt::format("CASE WHEN {} THEN CAST({} AS DOUBLE) END", KindIs(f, Kind::kNumber), f);
      case Type::kString:
        return fmt::format("CASE WHEN {} THEN {} END", KindIs(f, Kind::kString), f);
      case Type::kBool:
        return fmt::format("CASE {} WHEN 'true' THEN TRUE WHEN 'false' THEN FALSE END", f);
      default:
        return Null(t);
    }
  }
  std::string Convert(const std::string& f, Type t) override {
    switch (t) {
      case Type::kNumber:
        return "CAST(" + f + " AS DOUBLE)";
      case Type::kBool:
        return "(" + f + " = 'true')";
      default:
        return f;
    }
  }
  std::string TypeName(Type t) override {
    return t == Type::kBool ? "BOOLEAN" : t == Type::kNumber ? "DOUBLE" : "STRING";
  }
  // A value of any type is its JSON text, as a field's (Java's text of a double reads back as
  // the same double).
  std::string ToAny(const std::string& v, Type t) override {
    switch (t) {
      case Type::kNumber:
        return "CAST(" + v + " AS STRING)";
      case Type::kBool:
        return "CASE WHEN " + v + " THEN 'true' WHEN NOT " + v + " THEN 'false' END";
      default:
        return v;
    }
  }
  std::string Arith(Op op, const std::string& a, const std::string& b, bool nonzero) override {
    switch (op) {
      case Op::kAdd:
        return "(" + a + " + " + b + ")";
      case Op::kSub:
        return "(" + a + " - " + b + ")";
      case Op::kMul:
        return "(" + a + " * " + b + ")";
      case Op::kDiv:
        if (nonzero) return "(" + a + " / " + b + ")";
        return fmt::format("CASE WHEN {1} <> 0 THEN {0} / {1} END", a, b);
      default:
        // The remainder with the dividend's sign, as logtide's (Flink's MOD takes integers).
        if (nonzero) return fmt::format("({0} - {1} * TRUNCATE({0} / {1}, 0))", a, b);
        return fmt::format("CASE WHEN {1} <> 0 THEN {0} - {1} * TRUNCATE({0} / {1}, 0) END", a, b);
    }
  }
  std::string Call(const PlanExpr& e, const std::vector<std::string>& a) override {
    switch (e.op) {
      case Op::kStartsWith:
        return "(POSITION(" + a[1] + " IN " + a[0] + ") = 1)";
      case Op::kEndsWith:
        return "(POSITION(REVERSE(" + a[1] + ") IN REVERSE(" + a[0] + ")) = 1)";
      case Op::kContains:
        return "(POSITION(" + a[1] + " IN " + a[0] + ") > 0)";
      case Op::kMatches:  // a Java regular expression, found anywhere in the string
        return "REGEXP(" + a[0] + ", " + SqlString(e.pattern) + ")";
      case Op::kFloor:
        return "FLOOR(" + a[0] + ")";
      case Op::kCeil:
        return "CEIL(" + a[0] + ")";
      case Op::kRound:
        return fmt::format("ROUND({}, {})", a[0], a.size() > 1 ? e.args[1].literal.i : 0);
      case Op::kRegexpReplace:
        return "REGEXP_REPLACE(" + a[0] + ", " + a[1] + ", " +
               SqlString(JavaReplacement(e.args[2].literal.s)) + ")";
      case Op::kRegexpExtract:  // NULL without a match, as logtide's
        return fmt::format("REGEXP_EXTRACT({}, {}, {})", a[0], a[1],
                           e.args.size() > 2 ? e.args[2].literal.i : 0);
      case Op::kSplitPart: {  // a field from the start (Untranslated refuses one from the end)
        const int64_t field = e.args[2].literal.i;
        return fmt::format(
            "CASE WHEN {0} IS NULL OR {1} IS NULL THEN NULL WHEN {1} = '' THEN {2} "
            "ELSE COALESCE(SPLIT_INDEX({0}, {1}, {3}), '') END", a[0],
            a[1], field == 1 ? a[0] : "''", field - 1);
      }
      case Op::kConcat: {
        std::string s = "(" + a[0];
        for (size_t i = 1; i < a.size(); ++i) s += " || " + a[i];
        return s + ")";
      }
      case Op::kAbs:
        return "ABS(" + a[0] + ")";
      case Op::kLower:
        return "LOWER(" + a[0] + ")";
      case Op::kUpper:
        return "UPPER(" + a[0] + ")";
      default:  // len and substr: refused (Untranslated)
        return Null(e.type);
    }
  }
  // A key's value: a plain key's field, or a derived key's expression.
  std::string Key(size_t i) {
    const PlanExpr& e = p_.key_exprs[i];
    if (!p_.key_paths[i].empty()) return Access(p_.key_paths[i]);
    if (e.type == Type::kAny) return Any(e);
    return As(e, e.type == Type::kNull ? Type::kString : e.type);
  }
  std::string KeyType(size_t i) {
    if (!p_.key_paths[i].empty()) return "STRING";
    const Type t = p_.key_exprs[i].type;
    return t == Type::kNumber ? "DOUBLE" : t == Type::kBool ? "BOOLEAN" : "STRING";
  }
  // Whether the field at `path` is read as a STRING (its text), not as a DOUBLE.
  bool IsText(const FieldPath& path) const;

  std::string ColumnType(const SourceField& f) const;
  std::string Access(const FieldPath& path) const;
  std::string TimeColumnType() const;
  std::string AggExpr(const PlanAggregate& a);
  std::string AggType(const PlanAggregate& a) const;

  const QueryPlan& p_;
  bool records_ = false;  // rendering --having: fields are the records' columns
};

std::string Renderer::TimeColumnType() const {
  switch (p_.time.kind) {
    case PlanTime::Kind::kRfc3339:
    case PlanTime::Kind::kAuto:
      return "TIMESTAMP_LTZ(3)";
    case PlanTime::Kind::kEpoch:
      return p_.time.epoch_unit == 1'000'000'000 ? "DOUBLE" : "BIGINT";
    case PlanTime::Kind::kPattern:
      return "STRING";
  }
  return "STRING";
}

std::string Renderer::ColumnType(const SourceField& f) const {
  switch (f.use) {
    case FieldUse::kTime:
      return TimeColumnType();
    case FieldUse::kNumber:
      return "DOUBLE";
    case FieldUse::kAny:
      // Flink's JSON format reads any value into a STRING: a string as it is, anything else
      // as its JSON text.
      return "STRING";
    case FieldUse::kArray:
      // Each element a STRING, so elements of any type; a value that is not an array is null
      // (with json.ignore-parse-errors), and so are its elements, as logtide's.
      return "ARRAY<STRING>";
    case FieldUse::kRecord:
      break;
  }
  std::string s = "ROW<";
  for (size_t i = 0; i < f.children.size(); ++i) {
    s += (i ? ", " : "") + BacktickIdent(f.children[i].segment.key) + " " +
         ColumnType(f.children[i]);
  }
  return s + ">";
}

// Returns `path` as a JSON path for JSON_VALUE (Jayway's syntax): identifiers as .key, other
// keys as ['key'] with a quote or backslash in them escaped with a backslash; indices as [N],
// negative from the end.
std::string JsonPath(const FieldPath& path) {
  std::string out = "$";
  for (const PathSegment& seg : path) {
    if (seg.is_index) {
      out += fmt::format("[{}]", seg.index);
      continue;
    }
    bool identifier = !seg.key.empty() && !std::isdigit(static_cast<unsigned char>(seg.key[0]));
    for (char c : seg.key) identifier &= std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (identifier) {
      out += "." + seg.key;
      continue;
    }
    out += "['";
    for (char c : seg.key) {
      if (c == '\'' || c == '\\') out += '\\';
      out += c;
    }
    out += "']";
  }
  return out;
}

std::string Renderer::Access(const FieldPath& path) const {
  // An array is ARRAY<STRING>: an element is a column of its own, its value's text.
  const FieldColumn c = FindColumn(p_.fields, path, /*elements=*/true);
  std::string sql;
  for (const PathSegment& seg : c.columns) {
    if (!seg.is_index) {
      sql += (sql.empty() ? "" : ".") + BacktickIdent(seg.key);
    } else if (seg.index >= 0) {
      // 1-based; past the end NULL (Flink 1.11 and later, FLINK-17847).
      sql += fmt::format("[{}]", seg.index + 1);
    } else {
      // From the end: the last is at CARDINALITY; before the first, NULL.
      const std::string at = seg.index == -1
                                 ? fmt::format("CARDINALITY({})", sql)
                                 : fmt::format("CARDINALITY({}) - {}", sql, -seg.index - 1);
      sql = fmt::format("CASE WHEN CARDINALITY({0}) >= {1} THEN {0}[{2}] END", sql, -seg.index, at);
    }
  }
  if (c.inside.empty()) return sql;
  // Inside a field read as its JSON text: the rest of the path is a JSON path.
  return "JSON_VALUE(" + sql + ", " + SqlString(JsonPath(c.inside)) + ")";
}

bool Renderer::IsText(const FieldPath& path) const {
  const FieldColumn c = FindColumn(p_.fields, path, /*elements=*/true);
  return !c.inside.empty() || c.field->use != FieldUse::kNumber || c.field->segment.is_index;
}

std::string Renderer::AggType(const PlanAggregate& a) const {
  switch (a.spec.kind) {
    case AggKind::kCount:
    case AggKind::kCountField:
    case AggKind::kCountDistinct:
    case AggKind::kApproxDistinct:
      return "BIGINT";
    case AggKind::kSum:
    case AggKind::kMin:
    case AggKind::kMax:
    case AggKind::kAvg:
    case AggKind::kQuantile:
      return "DOUBLE";
    case AggKind::kFirst:
    case AggKind::kLast:
    case AggKind::kTopK:
      return "STRING";
  }
  return "STRING";
}

std::string Renderer::AggExpr(const PlanAggregate& a) {
  std::string f = a.path.empty() ? "" : Access(a.path);
  const bool numeric = a.spec.kind == AggKind::kSum || a.spec.kind == AggKind::kMin ||
                       a.spec.kind == AggKind::kMax || a.spec.kind == AggKind::kAvg;
  // A field also read as text (a key, an expression's): its numbers only, as logtide's.
  if (numeric && IsText(a.path)) f = FieldAs(f, Type::kNumber);
  // A filter aggregate: the value only where the condition is true (NULL, which aggregates
  // skip, elsewhere).
  if (!a.filter.empty()) {
    f = fmt::format("CASE WHEN {} THEN {} END", Bool(a.filter[0]),
                    a.spec.kind == AggKind::kCount ? "1" : f);
  }
  switch (a.spec.kind) {
    case AggKind::kCount:
      return a.filter.empty() ? "COUNT(*)" : "COUNT(" + f + ")";
    case AggKind::kCountField:
      return "COUNT(" + f + ")";
    case AggKind::kSum:
      return "SUM(" + f + ")";
    case AggKind::kMin:
      return "MIN(" + f + ")";
    case AggKind::kMax:
      return "MAX(" + f + ")";
    case AggKind::kAvg:
      return "AVG(" + f + ")";
    case AggKind::kCountDistinct:
    case AggKind::kApproxDistinct:
      return "COUNT(DISTINCT " + f + ")";
    case AggKind::kFirst:
      return "FIRST_VALUE(" + f + ")";
    case AggKind::kLast:
      return "LAST_VALUE(" + f + ")";
    case AggKind::kQuantile:
      return "CAST(NULL AS DOUBLE)";
    case AggKind::kTopK:
      return "CAST(NULL AS STRING)";
  }
  return "";
}

std::string Renderer::Render() {
  std::string s;
  auto out = std::back_inserter(s);
  const WindowSpec& w = p_.window;
  const bool late_fire = p_.emit == EmitMode::kUpdate && p_.lateness > 0;
  // --early-every: Flink's early firing, every DUR of processing time (Untranslated refuses it
  // for sessions and with an offset).
  const bool early_fire = p_.early_every > 0;
  // Both write updates to a window's row: GROUP BY windows, and a sink that takes them.
  const bool updates = late_fire || early_fire;
  // Final mode: a window is written once the watermark passes its end + lateness and takes an
  // event until then, which is a watermark lagging by delay + lateness with no allowed lateness.
  const Nanos watermark_lag = late_fire ? p_.delay : p_.delay + p_.lateness;

  std::string notes =
      "The query of\n  " + VisibleText(p_.command) +
      "\nas a Flink SQL job (Flink 1.15 or later; run with sql-client.sh -f FILE). Where its "
      "results differ from logtide's (man logtide, RUNNING THE SAME JOB ELSEWHERE): event times "
      "are milliseconds; a watermark W in Flink means no event at or before W follows, so an "
      "event at exactly the watermark is late in Flink and on time in logtide; records come out "
      "in the order the windows fire, not sorted by key; late events are dropped "
      "(counted only in a metric), with no side output; bad lines are skipped without a count.";
  if (HasExpressions(p_)) {
    notes +=
        " Expressions: a field an expression reads is a STRING column, typed by its text, so a "
        "string that reads as a number, true, false, an object or an array is taken as one; "
        "numbers are doubles; lower and upper change every letter (logtide's ASCII letters "
        "only); matches takes a Java regular expression (logtide's is RE2: the same for "
        "common patterns).";
    if (PlanUses(p_, [](const PlanExpr& e) {
          return e.op == Op::kRegexpReplace || e.op == Op::kRegexpExtract;
        })) {
      notes +=
          " regexp_replace and regexp_extract take Java regular expressions too (RE2's "
          "(?P<name>...) groups are an error in Java, and POSIX classes like [[:alpha:]], the (?U) "
          "flag and \\C mean other things there); a pattern that can match the empty string also "
          "replaces right after a match in Java, where RE2 does not (regexp_replace of abxd, x* "
          "and - is -a-b--d- there, -a-b-d- in logtide); a group of regexp_extract that took no "
          "part in the match is NULL there, '' in logtide.";
    }
    if (PlanUses(p_, [](const PlanExpr& e) { return e.op == Op::kRound && e.args.size() > 1; })) {
      notes +=
          " round with digits: ROUND rounds the double's decimal text HALF_UP, where logtide "
          "rounds x * 10^digits in doubles (round(1.005, 2) is 1.01 there, 1 in logtide).";
    }
  }
  if (HasArray(p_.fields)) {
    notes +=
        " Array elements: an array is ARRAY<STRING>, each element its value's text; an index "
        "past the end gives NULL (Flink 1.11 and later); a path inside an element is read with "
        "JSON_VALUE, which gives NULL for an object or an array there.";
  }
  if (p_.lateness > 0 && !late_fire) {
    notes += " --lateness " + FormatDuration(p_.lateness) +
             " in final mode is the watermark's lag (delay + lateness): each window is written "
             "once, when the watermark passes its end + lateness, as in logtide.";
  }
  s += SqlComment(notes);
  // Calendar windows: Flink windows a TIMESTAMP_LTZ time on the local wall clock of the session
  // time zone, and the rendering casts their bounds back to instants.
  const bool zoned = w.is_calendar() && w.has_zone;
  if (zoned) {
    s += "\n" +
         SqlComment("Calendar windows: " + CalendarWindowText(w) + " in " + w.zone.name() +
                    ". Flink puts an event in the window of its local time in the session time "
                    "zone, by the JDK's zone rules (logtide reads the system's zone database: "
                    "the two can differ for a zone whose rules changed); window_start and "
                    "window_end are local wall-clock times there, cast to TIMESTAMP_LTZ "
                    "instants. Next to a change of the clock by other than an hour, Flink may "
                    "fire a window up to an hour after its end, which changes only which events "
                    "are late.");
    s += "SET 'table.local-time-zone' = " + SqlString(w.zone.name()) + ";\n";
  } else {
    s += "\nSET 'table.local-time-zone' = 'UTC';  -- window_start and window_end in UTC, as "
         "logtide writes them\n";
  }
  if (p_.idle_timeout > 0) {
    fmt::format_to(out,
                   "SET 'table.exec.source.idle-timeout' = '{}';  -- --idle-timeout: an idle "
                   "split stops holding the watermark back\n",
                   ConfigDuration(p_.idle_timeout));
  }
  if (late_fire) {
    fmt::format_to(out,
                   "-- --emit update with --lateness: a first result when the watermark passes "
                   "the window's end, then an\n"
                   "-- updated one for each late event within the lateness (an update "
                   "retraction and a new row, where\n"
                   "-- logtide writes the next revision). These settings apply to GROUP BY "
                   "TUMBLE/HOP/SESSION windows.\n"
                   "SET 'table.exec.emit.allow-lateness' = '{}';\n"
                   "SET 'table.exec.emit.late-fire.enabled' = 'true';\n"
                   "SET 'table.exec.emit.late-fire.delay' = '0 s';\n",
                   ConfigDuration(p_.lateness));
  }

  if (early_fire) {
    fmt::format_to(out,
                   "-- --early-every {}: while a window is open, every {} of processing time, a "
                   "provisional result\n"
                   "-- for each window and key that changed (an update retraction and a new row, "
                   "where logtide writes\n"
                   "-- the next revision with \"phase\":\"early\"); these too depend on when "
                   "events arrive. For GROUP BY\n"
                   "-- TUMBLE/HOP windows.\n"
                   "SET 'table.exec.emit.early-fire.enabled' = 'true';\n"
                   "SET 'table.exec.emit.early-fire.delay' = '{}';\n",
                   FormatDuration(p_.early_every), FormatDuration(p_.early_every),
                   ConfigDuration(p_.early_every));
  }

  // The source.
  s += "\nCREATE TABLE `logtide_source` (\n";
  for (const SourceField& f : p_.fields) {
    fmt::format_to(out, "  {} {},\n", BacktickIdent(f.segment.key), ColumnType(f));
  }
  const std::string t = Access(p_.time.path);
  std::string event_time;
  // The computed event-time column: `event_time`, unless the source has a field of that name.
  std::string rowtime = "`event_time`";
  for (const SourceField& f : p_.fields) {
    if (f.segment.key == "event_time") rowtime = "`logtide_event_time`";
  }
  std::string time_note;
  switch (p_.time.kind) {
    case PlanTime::Kind::kRfc3339:
    case PlanTime::Kind::kAuto:
      event_time = t;
      time_note =
          "the JSON format reads RFC 3339 times in UTC (...Z) into TIMESTAMP_LTZ with "
          "'json.timestamp-format.standard' = 'ISO-8601'; a time with another offset is null, "
          "and the line skipped";
      if (p_.time.kind == PlanTime::Kind::kAuto)
        time_note += "; --time-format auto also takes epoch numbers, which this does not";
      if (zoned) {
        time_note +=
            "; a time without an offset, which logtide reads as a local time in the --tz zone, "
            "is null too";
      }
      break;
    case PlanTime::Kind::kEpoch:
      if (p_.time.epoch_unit == 1'000'000'000) {
        event_time = "TO_TIMESTAMP_LTZ(CAST(" + t + " * 1000 AS BIGINT), 3)";
      } else if (p_.time.epoch_unit == kMilli) {
        event_time = "TO_TIMESTAMP_LTZ(" + t + ", 3)";
      } else {
        event_time = fmt::format("TO_TIMESTAMP_LTZ({} / {}, 3)", t, kMilli / p_.time.epoch_unit);
      }
      time_note = "a number of " + p_.time.format.substr(6) + " since 1970 (--time-format " +
                  p_.time.format + "), as milliseconds, Flink's event-time precision";
      break;
    case PlanTime::Kind::kPattern: {
      // Untranslated() refused a pattern the translation cannot take.
      SqlTimePattern java;
      (void)TranslateTimePattern(p_.time.pattern, SqlDialect::kFlink, &java);
      event_time = "TO_TIMESTAMP(" + t + ", " + SqlString(java.text) + ")";
      time_note = "strptime pattern " + VisibleText(p_.time.pattern) +
                  " as a Java DateTimeFormatter pattern; TO_TIMESTAMP returns a time without "
                  "zone, taken as UTC";
      if (!java.inexact.empty())
        time_note += " (Java reads " + java.inexact + " differently: check against a sample line)";
      break;
    }
  }
  s += SqlComment("The event time: " + time_note + ".", "  ");
  fmt::format_to(out, "  {} AS {},\n", rowtime, event_time);
  s += SqlComment(p_.delay + (late_fire ? 0 : p_.lateness) == 0
                      ? "The watermark: the latest event time (no --delay)."
                      : "The watermark: the latest event time minus " +
                            (late_fire || p_.lateness == 0
                                 ? "--delay " + FormatDuration(p_.delay)
                                 : "--delay " + FormatDuration(p_.delay) + " and --lateness " +
                                       FormatDuration(p_.lateness)) +
                            ".",
                  "  ");
  fmt::format_to(out, "  WATERMARK FOR {0} AS {0}{1}\n", rowtime,
                 watermark_lag == 0 ? "" : " - " + Interval(watermark_lag));
  std::string paths;
  for (size_t i = 1; i < p_.inputs.size(); ++i) paths += " " + VisibleText(p_.inputs[i]);
  fmt::format_to(
      out,
      ") WITH (\n"
      "  -- The connector (a placeholder): the same files, read once as a bounded stream{}.\n"
      "  -- From a message bus instead, e.g. Kafka:\n"
      "  --   'connector' = 'kafka', 'topic' = 'app-logs', 'properties.bootstrap.servers' = "
      "'HOST:9092',\n"
      "  --   'properties.group.id' = 'logtide', 'scan.startup.mode' = 'earliest-offset',\n"
      "  'connector' = 'filesystem',\n"
      "  'path' = {},\n"
      "  'format' = 'json',\n"
      "  'json.timestamp-format.standard' = 'ISO-8601',\n"
      "  'json.fail-on-missing-field' = 'false',  -- an absent field is null\n"
      "  'json.ignore-parse-errors' = 'true'  -- a line that is not JSON, or a field of another "
      "type, is null\n"
      ");\n",
      paths.empty() ? "" : " (a directory holding them all:" + paths + " too)",
      SqlString(p_.inputs[0] == "-" ? "/dev/stdin" : p_.inputs[0]));

  // Lines without a usable event time are bad lines: logtide skips them.
  s += "\nCREATE TEMPORARY VIEW `logtide_events` AS\n"
       "  SELECT * FROM `logtide_source` WHERE " +
       rowtime + " IS NOT NULL" + (p_.where.empty() ? ";" : "") +
       "  -- a line without a usable time is skipped\n";
  for (size_t i = 0; i < p_.where.size(); ++i) {
    s += SqlComment("--where " + VisibleText(p_.where[i].text), "    ");
    s += "    AND " + Bool(p_.where[i]) + (i + 1 == p_.where.size() ? ";\n" : "\n");
  }

  // The sink: logtide's record, column for column.
  s += "\nCREATE TABLE `logtide_sink` (\n";
  if (zoned) {
    s += "  `window_start` TIMESTAMP_LTZ(3),  -- an instant, which the JSON format writes in UTC\n";
    s += "  `window_end` TIMESTAMP_LTZ(3),\n";
  } else {
    s += "  `window_start` TIMESTAMP(3),  -- logtide writes RFC 3339 text\n";
    s += "  `window_end` TIMESTAMP(3),\n";
  }
  for (size_t i = 0; i < p_.keys.size(); ++i) {
    fmt::format_to(out, "  {} {},\n", BacktickIdent(p_.keys[i]), KeyType(i));
  }
  for (size_t i = 0; i < p_.aggs.size(); ++i) {
    fmt::format_to(out, "  {} {}{}\n", BacktickIdent(p_.aggs[i].spec.name), AggType(p_.aggs[i]),
                   i + 1 < p_.aggs.size() || updates ? "," : "");
  }
  if (updates) {
    std::string pk = "`window_start`, `window_end`";
    for (const std::string& k : p_.keys) pk += ", " + BacktickIdent(k);
    fmt::format_to(out,
                   "  -- Updates replace the row with the same window and key (keys that may be "
                   "null need a COALESCE).\n"
                   "  PRIMARY KEY ({}) NOT ENFORCED\n"
                   ") WITH (\n"
                   "  -- A sink that takes updates (the filesystem sink takes appends only).\n"
                   "  'connector' = 'upsert-kafka',\n"
                   "  'topic' = 'logtide-results',\n"
                   "  'properties.bootstrap.servers' = 'HOST:9092',\n"
                   "  'key.format' = 'json',\n"
                   "  'value.format' = 'json'\n"
                   ");\n",
                   pk);
  } else {
    s += ") WITH (\n"
         "  'connector' = 'filesystem',\n"
         "  'path' = 'logtide-results',\n"
         "  'format' = 'json'\n"
         ");\n";
  }

  // The query.
  const bool group_window = w.is_session() || updates;
  std::string keys_sql;
  for (size_t i = 0; i < p_.keys.size(); ++i) keys_sql += ", " + Key(i);
  std::string start, end, from, group;
  if (group_window) {
    std::string fn, args;
    switch (w.kind) {
      case WindowSpec::Kind::kTumbling:
        fn = "TUMBLE";
        args = Interval(FlinkWindowSize(w));
        break;
      case WindowSpec::Kind::kSliding:
        fn = "HOP";
        args = Interval(w.slide) + ", " + Interval(w.size);
        break;
      case WindowSpec::Kind::kSession:
        fn = "SESSION";
        args = Interval(w.gap);
        break;
    }
    const std::string call = "(" + rowtime + ", " + args + ")";
    start = fn + "_START" + call;
    end = fn + "_END" + call;
    from = "`logtide_events`";
    group = fn + call + keys_sql;
  } else {
    start = "window_start";
    end = "window_end";
    // The grid's offset is the window functions' last, optional argument (Flink 1.15 on).
    const Nanos grid_offset = FlinkWindowOffset(w);
    const std::string offset = grid_offset == 0 ? std::string() : ", " + Interval(grid_offset);
    from = w.kind == WindowSpec::Kind::kTumbling
               ? "TABLE(TUMBLE(TABLE `logtide_events`, DESCRIPTOR(" + rowtime + "), " +
                     Interval(FlinkWindowSize(w)) + offset + "))"
               : "TABLE(HOP(TABLE `logtide_events`, DESCRIPTOR(" + rowtime + "), " +
                     Interval(w.slide) + ", " + Interval(w.size) + offset + "))";
    group = "window_start, window_end" + keys_sql;
  }
  if (w.is_session()) {
    s += "\n-- Sessions in the group-window form GROUP BY SESSION(...): the SESSION table "
         "function is newer (Flink 1.19)\n-- than most clusters. A session is [first event, "
         "last event + gap), as in logtide.\n";
  } else if (group_window) {
    s += "\n-- The group-window form GROUP BY " +
         std::string(w.kind == WindowSpec::Kind::kTumbling ? "TUMBLE" : "HOP") +
         "(...): " + (early_fire ? "early firing" : "allowed lateness") +
         " applies to it, not to the window table functions.\n";
  } else {
    s += "\n";
  }
  if (zoned) {
    start = "CAST(" + start + " AS TIMESTAMP_LTZ(3))";
    end = "CAST(" + end + " AS TIMESTAMP_LTZ(3))";
  }
  const bool having = !p_.having.empty();
  fmt::format_to(out,
                 "INSERT INTO `logtide_sink`\n{}SELECT\n  {} AS `window_start`,\n  {} AS "
                 "`window_end`",
                 having ? "SELECT * FROM (\n" : "", start, end);
  for (size_t i = 0; i < p_.keys.size(); ++i) {
    s += ",\n";
    if (p_.key_paths[i].empty())
      s += SqlComment(VisibleText(p_.keys[i] + "=" + p_.key_exprs[i].text), "  ");
    fmt::format_to(out, "  {} AS {}", Key(i), BacktickIdent(p_.keys[i]));
  }
  for (const PlanAggregate& a : p_.aggs) {
    s += ",\n";
    if (!a.flink_note.empty()) s += SqlComment(a.flink_note, "  ");
    if (!a.filter.empty())
      s += SqlComment(VisibleText(a.spec.name + " filter " + a.filter[0].text), "  ");
    fmt::format_to(out, "  {} AS {}", AggExpr(a), BacktickIdent(a.spec.name));
  }
  fmt::format_to(out, "\nFROM {}\nGROUP BY {}", from, group);
  if (having) {
    // A filter on the windows' results. On an updating result (lateness) Flink filters each
    // change: a row that stops matching is retracted, so the table ends with the rows whose
    // last revision matches, which are logtide's records.
    records_ = true;
    std::string where;
    for (const PlanExpr& h : p_.having) {
      where += where.empty() ? "" : "\n  AND\n";
      where += SqlComment(VisibleText("--having " + h.text), "  ") + "  " + Bool(h);
    }
    records_ = false;
    fmt::format_to(out,
                   "\n) AS records\n-- --having: records for which every condition is true.\n"
                   "WHERE\n{}",
                   where);
  }
  s += ";\n";
  return s;
}

}  // namespace

std::string FlinkSql(const QueryPlan& plan) { return Renderer(plan).Render(); }

Nanos FlinkWindowSize(const WindowSpec& w) {
  constexpr Nanos kDay = 86400 * kNanosPerSecond;
  switch (w.calendar) {
    case WindowSpec::Calendar::kDays:
      return w.count * kDay;
    case WindowSpec::Calendar::kWeeks:
      return w.count * 7 * kDay;
    case WindowSpec::Calendar::kMonths:  // no Flink window (REQUIRES)
    case WindowSpec::Calendar::kWallClock:
    case WindowSpec::Calendar::kLocalGrid:
    case WindowSpec::Calendar::kNone:
      break;
  }
  return w.kind == WindowSpec::Kind::kSliding ? w.slide : w.size;
}

Nanos FlinkWindowOffset(const WindowSpec& w) {
  if (w.is_session()) return 0;
  if (w.calendar == WindowSpec::Calendar::kMonths) return w.offset;  // no Flink window
  // logtide's weeks start on Monday 1969-12-29, three days before Flink's grid's 1970-01-01.
  constexpr Nanos kThreeDays = 3 * 86400 * kNanosPerSecond;
  const Nanos size = FlinkWindowSize(w);
  const Nanos offset =
      w.calendar == WindowSpec::Calendar::kWeeks ? w.offset - kThreeDays : w.offset;
  return (offset % size + size) % size;
}

}  // namespace logtide
