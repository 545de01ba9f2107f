#include "plan/clickhouse_sql.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "json/field_path.h"
#include "plan/sql_expr.h"
#include "plan/sql_text.h"
#include "time/duration.h"

namespace logtide {
namespace {

// Returns `s` as a ClickHouse string literal: in single quotes, with a backslash and a quote
// escaped by a backslash (ClickHouse reads backslash escapes in literals).
std::string ChString(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  return out + "'";
}

// Returns `s` as a ClickHouse identifier in backticks, a backtick or backslash escaped.
std::string ChIdent(std::string_view s) {
  std::string out = "`";
  for (char c : s) {
    if (c == '\\' || c == '`') out += '\\';
    out += c;
  }
  return out + "`";
}

// Returns an RE2 pattern as ClickHouse's match and extract read it as logtide's: they let '.'
// match a newline, unless the pattern says (?-s).
std::string Pattern(const std::string& re2) { return ChString("(?-s)" + re2); }

// Every constant of the time arithmetic as an Int64 (a bare literal is unsigned in ClickHouse,
// and Int64 with UInt64 arithmetic would not be signed).
std::string I64(int64_t n) { return fmt::format("toInt64({})", n); }

// Removes the white space around a value visitParamExtractRaw returns (it keeps what is between
// the colon and the comma).
std::string Trim(const std::string& x) {
  return "replaceRegexpAll(" + x + ", '^[ \\\\t\\\\r\\\\n]+|[ \\\\t\\\\r\\\\n]+$', '')";
}

// Returns `x`, or `d` where it is NULL. (ClickHouse 18.16's ifNull refuses an argument that is
// not Nullable, and its toNullable one that is an element of an array of Nullable values.)
std::string IfNull(const std::string& x, const std::string& d) {
  return "coalesce(" + x + ", " + d + ")";
}

// Conditions and conversions on a value's JSON text `r` ('' when absent).
std::string IsNumber(const std::string& r) { return "match(" + r + ", '^-?[0-9]')"; }
std::string IsString(const std::string& r) { return "startsWith(" + r + ", '\"')"; }
std::string Present(const std::string& r) { return "(" + r + " != '' AND " + r + " != 'null')"; }
std::string NumberOf(const std::string& r) {
  return "if(" + IsNumber(r) + ", toFloat64OrNull(" + r + "), CAST(NULL AS Nullable(Float64)))";
}
// A JSON string's text, its escapes decoded: the value of a one-field object holding it.
std::string Unescaped(const std::string& r) {
  return "visitParamExtractString(concat('{\"v\":', " + r + ", '}'), 'v')";
}
// The order of kinds logtide sorts keys in: null (and absent), false, true, numbers, strings,
// objects and arrays.
std::string RankOf(const std::string& r) {
  return fmt::format(
      "toUInt8(multiIf({0} = '' OR {0} = 'null', 0, {0} = 'false', 1, {0} = 'true', 2, {1}, 3, "
      "{2}, 4, 5))",
      r, IsNumber(r), IsString(r));
}
// A value as text: a string's characters, a number as the double it is, true or false, and an
// object or array as written; '' for null.
std::string TextOf(const std::string& r) {
  // + 0: -0 is 0, one key, as logtide's.
  return fmt::format("multiIf({0}, {1}, {2}, toString(toFloat64OrZero({3}) + 0), {3} = 'null', '', {3})",
                     IsString(r), Unescaped(r), IsNumber(r), r);
}

// Whether the aggregate reads a column of its own (logtide_value_N): all but a plain count.
bool HasValue(const PlanAggregate& a) { return a.spec.kind != AggKind::kCount || !a.filter.empty(); }

bool IsNumeric(AggKind k) {
  return k == AggKind::kSum || k == AggKind::kMin || k == AggKind::kMax || k == AggKind::kAvg ||
         k == AggKind::kQuantile;
}

class Renderer : private SqlExprWriter {
 public:
  explicit Renderer(const QueryPlan& p) : p_(p) {}
  std::string Render();

 private:
  // SqlExprWriter: a field is its JSON text ('' when absent), typed by its first character.
  // ClickHouse has no boolean type (UInt8 0 and 1) and no TRUE or FALSE, and its AND and OR
  // are not Kleene's (NULL AND 0 is NULL): they are written here.
  std::string Field(const FieldPath& path) override { return Raw(path); }
  std::string Present(const std::string& f) override { return logtide::Present(f); }
  std::string KindIs(const std::string& f, Kind k) override;
  std::string FieldAs(const std::string& f, Type t) override;
  std::string Convert(const std::string& f, Type t) override;
  std::string ToAny(const std::string& v, Type t) override;
  std::string TypeName(Type t) override {
    return t == Type::kBool     ? "Nullable(UInt8)"
           : t == Type::kNumber ? "Nullable(Float64)"
                                : "Nullable(String)";
  }
  std::string Arith(Op op, const std::string& a, const std::string& b, bool nonzero) override;
  std::string Call(const PlanExpr& e, const std::vector<std::string>& a) override;
  std::string True() override { return "toUInt8(1)"; }
  std::string False() override { return "toUInt8(0)"; }
  std::string StringLiteral(std::string_view s) override { return ChString(s); }
  std::string DoubleLiteral(const std::string& number) override {
    return "toFloat64(" + number + ")";
  }
  std::string Logic(Op op, const std::string& a, const std::string& b) override;
  // ClickHouse 18.16 writes -(-x), and negate(negate(x)), as --x (a comment) in the query it
  // sends to the shards.
  std::string Negate(const std::string& x) override { return "(0 - " + x + ")"; }
  std::string InList(const std::string& x, const std::string& list) override {
    // ClickHouse's NULL IN (...) is 0. (A lambda would hold `x` once, but ClickHouse 18.16 gets
    // IN inside one wrong on constants.)
    return fmt::format(
        "multiIf(isNull({0}), CAST(NULL AS Nullable(UInt8)), toNullable(toUInt8({0} IN ({1}))))", x,
        list);
  }
  // An expression's value as JSON text, for keys: what Field gives.
  std::string AnyText(const PlanExpr& e) {
    return e.type == Type::kNull ? std::string("''") : AnyOf(e);
  }
  // Whether an event passes the conditions (an expression true): 1, else 0.
  std::string Passes(const PlanExpr& e) { return IfNull(Bool(e), "0") + " = 1"; }

  // The alias of the JSON text of the field at `path`, read in the innermost SELECT; each
  // prefix of the path gets its own.
  std::string Raw(const FieldPath& path);
  // The same text as one expression over `line` (for the sharding key, which reads columns).
  std::string RawInline(const FieldPath& path) const;
  std::string Step(const std::string& parent, const PathSegment& seg) const {
    return fmt::format("if(startsWith({0}, '{{'), {1}, '')", parent,
                       Trim("visitParamExtractRaw(" + parent + ", " + ChString(seg.key) + ")"));
  }
  std::string TimeNs();
  std::string Rfc3339Ns(const std::string& r);
  std::string EpochNs(const std::string& r, int64_t unit);
  // The SELECT that gives each event (of `table`) its windows, keys and aggregate inputs.
  // Returns the FROM and WHERE that give each event of `table` its windows, keys and aggregate
  // inputs, as aliases (one SELECT: ClickHouse 18.16 pushes inserted rows into a materialized
  // view whose query reads a subquery wrongly, finding none of its columns).
  // `fractions`: with the aliases TimeText reads.
  std::string Windowed(const std::string& table, bool fractions);
  // Returns window bound `bound` ("start" or "end") as logtide writes a time. REQUIRES: the query
  // has the aliases of Fractions().
  std::string TimeText(const std::string& bound) const;
  // The output columns: the window bounds, the keys, then `aggs`, then update mode's.
  std::string Columns(const std::vector<std::string>& aggs) const;
  // The key columns (three per key: kind, number, text), or empty.
  std::string Keys() const;
  std::string GroupBy() const;
  std::string OrderBy() const;
  // Returns the query of session windows with the output `columns`: per key, the events
  // (`events`: their array of (time, seq, aggregate inputs...) tuples) from `source` (a FROM and
  // WHERE) sorted, cut where a gap is longer than the session gap, and aggregated per session.
  std::string SessionQuery(const std::string& columns, const std::string& events,
                           const std::string& source) const;
  // The tuple of an event's time, place in the input and aggregate inputs.
  std::string EventTuple() const {
    std::string s = "(logtide_ns, logtide_seq";
    for (size_t i = 0; i < p_.aggs.size(); ++i) {
      if (HasValue(p_.aggs[i])) s += fmt::format(", logtide_value_{}", i + 1);
    }
    return s + ")";
  }

  const QueryPlan& p_;
  std::map<std::vector<std::string>, std::string> aliases_;  // by the path's keys
  std::vector<std::pair<std::string, std::string>> raw_columns_;  // (alias, expression)
};

std::string Renderer::KindIs(const std::string& f, Kind k) {
  switch (k) {
    case Kind::kNumber:
      return IsNumber(f);
    case Kind::kString:
      return IsString(f);
    case Kind::kBool:
      return "(" + f + " IN ('true', 'false'))";
    case Kind::kOther:
      break;
  }
  return "(startsWith(" + f + ", '{') OR startsWith(" + f + ", '['))";
}

std::string Renderer::FieldAs(const std::string& f, Type t) {
  return fmt::format("if({}, toNullable({}), {})",
                     KindIs(f, t == Type::kNumber ? Kind::kNumber
                               : t == Type::kString ? Kind::kString
                                                    : Kind::kBool),
                     Convert(f, t), Null(t));
}

std::string Renderer::Convert(const std::string& f, Type t) {
  switch (t) {
    case Type::kNumber:
      return "toFloat64OrZero(" + f + ")";
    case Type::kString:
      return Unescaped(f);
    case Type::kBool:
      return "toUInt8(" + f + " = 'true')";
    default:
      return Null(t);
  }
}

std::string Renderer::ToAny(const std::string& v, Type t) {
  switch (t) {
    case Type::kNumber:  // finite (Arith gives NULL otherwise): JSON's number text
      return IfNull("toString(" + v + ")", "''");
    case Type::kString:  // as a JSON string: a backslash and a quote escaped
      return IfNull("concat('\"', replaceAll(replaceAll(" + v +
                        ", '\\\\', '\\\\\\\\'), '\"', '\\\\\"'), '\"')",
                    "''");
    case Type::kBool:
      return "multiIf(isNull(" + v + "), '', " + v + " = 1, 'true', 'false')";
    default:
      return "''";
  }
}

std::string Renderer::Arith(Op op, const std::string& a, const std::string& b, bool) {
  // NULL where logtide's is null: a result that is not finite. ClickHouse's % takes integers:
  // logtide's (fmod) is x - y * trunc(x / y). Each operand is written once, in a lambda.
  std::string r;
  switch (op) {
    case Op::kAdd:
      r = "logtide_x + logtide_y";
      break;
    case Op::kSub:
      r = "logtide_x - logtide_y";
      break;
    case Op::kMul:
      r = "logtide_x * logtide_y";
      break;
    case Op::kDiv:
      r = "logtide_x / logtide_y";
      break;
    default:
      r = "logtide_x - logtide_y * trunc(logtide_x / logtide_y)";
      break;
  }
  return fmt::format(
      "arrayElement(arrayMap((logtide_x, logtide_y) -> if(isFinite({0}), {0}, "
      "CAST(NULL AS Nullable(Float64))), [toNullable({1})], [toNullable({2})]), 1)",
      r, a, b);
}

std::string Renderer::Logic(Op op, const std::string& a, const std::string& b) {
  // Kleene's: false 0, unknown 1, true 2; AND is the least, OR the greatest.
  return fmt::format(
      "arrayElement([toNullable(toUInt8(0)), NULL, toNullable(toUInt8(1))], {}({}, {}) + 1)",
      op == Op::kAnd ? "least" : "greatest", IfNull("toUInt8(" + a + ") * 2", "1"),
      IfNull("toUInt8(" + b + ") * 2", "1"));
}

std::string Renderer::Call(const PlanExpr& e, const std::vector<std::string>& a) {
  switch (e.op) {
    case Op::kStartsWith:
      return "startsWith(" + a[0] + ", " + a[1] + ")";
    case Op::kEndsWith:
      return "endsWith(" + a[0] + ", " + a[1] + ")";
    case Op::kContains:
      return "(position(" + a[0] + ", " + a[1] + ") > 0)";
    case Op::kMatches:  // RE2, matching anywhere in the string
      return "match(" + a[0] + ", " + Pattern(e.pattern) + ")";
    case Op::kFloor:
      return "floor(" + a[0] + ")";
    case Op::kCeil:
      return "ceil(" + a[0] + ")";
    case Op::kRound:  // halves away from zero, as logtide's
      if (a.size() > 1) return fmt::format("round({}, {})", a[0], e.args[1].literal.i);
      return "round(" + a[0] + ")";
    case Op::kAbs:
      return "abs(" + a[0] + ")";
    case Op::kLower:  // ASCII letters only, as logtide's
      return "lower(" + a[0] + ")";
    case Op::kUpper:
      return "upper(" + a[0] + ")";
    case Op::kLen:  // code points
      return "toFloat64(lengthUTF8(" + a[0] + "))";
    case Op::kRegexpReplace:  // RE2 and its rewrite syntax (\1), every match
      return fmt::format("replaceRegexpAll({}, {}, {})", a[0], Pattern(e.args[1].literal.s), a[2]);
    case Op::kRegexpExtract: {
      // extract() gives the first group, or the whole match when the pattern has none; no match:
      // NULL, where extract() gives ''. ClickHouseUntranslated refuses a group past 1.
      const std::string& pattern = e.args[1].literal.s;
      const bool whole = e.args.size() < 3 || e.args[2].literal.i == 0;
      return fmt::format("if(match({0}, {1}), toNullable(extract({0}, {2})), {3})", a[0],
                         Pattern(pattern), Pattern(whole ? "(" + pattern + ")" : pattern),
                         Null(Type::kString));
    }
    case Op::kSplitPart: {
      // Fields split left to right, a negative index from the end; past the end ''; an empty
      // separator is one field.
      const int64_t field = e.args[2].literal.i;
      if (e.args[1].literal.s.empty()) return field == 1 || field == -1 ? a[0] : "''";
      // splitByString takes no Nullable string: NULL is tested apart, in a lambda.
      return fmt::format(
          "arrayElement(arrayMap(logtide_s -> if(isNull(logtide_s), {0}, "
          "toNullable(arrayElement(splitByString({1}, assumeNotNull(logtide_s)), {2}))), [{3}]), 1)",
          Null(Type::kString), ChString(e.args[1].literal.s), field, a[0]);
    }
    case Op::kConcat: {  // NULL when an operand is, as logtide's concat
      if (a.size() == 1) return a[0];  // ClickHouse's concat takes two or more
      std::string s = "concat(" + a[0];
      for (size_t i = 1; i < a.size(); ++i) s += ", " + a[i];
      return s + ")";
    }
    default:
      return "";
  }
}

std::string Renderer::Raw(const FieldPath& path) {
  std::vector<std::string> keys;  // a path here has no array element (ClickHouseUntranslated)
  for (const PathSegment& seg : path) keys.push_back(seg.key);
  if (auto it = aliases_.find(keys); it != aliases_.end()) return it->second;
  const std::string parent =
      path.size() == 1 ? std::string("logtide_text") : Raw(FieldPath(path.begin(), path.end() - 1));
  std::string alias = fmt::format("logtide_f{}", raw_columns_.size() + 1);
  raw_columns_.emplace_back(alias, Step(parent, path.back()));
  aliases_.emplace(keys, alias);
  return alias;
}

std::string Renderer::RawInline(const FieldPath& path) const {
  std::string r = Trim("logtide_line");
  for (const PathSegment& seg : path) r = Step(r, seg);
  return r;
}

std::string Renderer::Rfc3339Ns(const std::string& r) {
  // ClickHouse's DateTime is whole seconds: the fraction's digits are read apart. Both branches
  // of if() are computed, so the parser only ever sees a well-formed time.
  if (aliases_.emplace(std::vector<std::string>{"", "time"}, "logtide_time_ok").second) {
    raw_columns_.emplace_back("logtide_time_string",
                              fmt::format("upper(if({}, {}, ''))", IsString(r), Unescaped(r)));
    raw_columns_.emplace_back(
        "logtide_time_ok",
        // Each field in its range, a UTC offset required, and a day the month has (toDateOrZero
        // moves 02-30 to 03-01), as logtide's: parseDateTimeBestEffort would move the others.
        "match(logtide_time_string, '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[T ]"
        "([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\\\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$')\n"
        "    AND toString(toDateOrZero(substring(logtide_time_string, 1, 10))) = "
        "substring(logtide_time_string, 1, 10)");
  }
  return fmt::format(
      "if(logtide_time_ok,\n"
      "     toInt64(toUInt32(parseDateTimeBestEffort(if(logtide_time_ok, logtide_time_string, "
      "'1970-01-02T00:00:00Z'), 'UTC'))) * {}\n"
      "     + toInt64(substring(concat(extract(logtide_time_string, '\\\\.([0-9]+)'), '000000000'), "
      "1, 9)),\n"
      "     CAST(NULL AS Nullable(Int64)))",
      I64(kNanosPerSecond));
}

std::string Renderer::EpochNs(const std::string& r, int64_t unit) {
  // Integers exactly; numbers with a fraction as doubles; NULL (a bad line) past the range of
  // Int64 nanoseconds, where the product would wrap.
  return fmt::format(
      "multiIf(abs(toFloat64OrZero({0})) * {3} >= 9.2e18, CAST(NULL AS Nullable(Int64)),\n"
      "          match({0}, '^-?[0-9]+$'), toInt64OrNull({0}) * {1}, {2}, "
      "toInt64(floor(toFloat64OrZero({0}) * {3})), CAST(NULL AS Nullable(Int64)))",
      r, I64(unit), IsNumber(r), unit);
}

std::string Renderer::TimeNs() {
  const std::string r = Raw(p_.time.path);
  switch (p_.time.kind) {
    case PlanTime::Kind::kRfc3339:
      return Rfc3339Ns(r);
    case PlanTime::Kind::kEpoch:
      return EpochNs(r, p_.time.epoch_unit);
    case PlanTime::Kind::kAuto:
      // Epoch numbers: the unit by magnitude, as --time-format auto guesses it.
      return fmt::format(
          "multiIf({0}, {1},\n"
          "        abs(toFloat64OrZero({2})) < 1e11, {3},\n"
          "        abs(toFloat64OrZero({2})) < 1e14, {4},\n"
          "        abs(toFloat64OrZero({2})) < 1e17, {5},\n"
          "        {6})",
          IsString(r), Rfc3339Ns(r), r, EpochNs(r, 1000000000), EpochNs(r, 1000000),
          EpochNs(r, 1000), EpochNs(r, 1));
    case PlanTime::Kind::kPattern:  // refused (ClickHouseUntranslated)
      break;
  }
  return "CAST(NULL AS Nullable(Int64))";
}

// The nanoseconds past the second of the window bounds, as aliases for TimeText.
std::string Fractions() {
  std::string s;
  for (const char* b : {"start", "end"}) {
    s += fmt::format("  (((logtide_{0}_ns % {1}) + {1}) % {1}) AS logtide_{0}_fraction,\n", b,
                     I64(kNanosPerSecond));
  }
  return s;
}

// The largest offset + k * n <= x.
std::string GridFloor(const std::string& x, Nanos n, Nanos offset) {
  const std::string shifted = offset == 0 ? x : fmt::format("({} - {})", x, I64(offset));
  return fmt::format("({0} - (({1} % {2}) + {2}) % {2})", x, shifted, I64(n));
}

std::string Renderer::Windowed(const std::string& table, bool fractions) {
  const WindowSpec& w = p_.window;
  std::string cols = "  assumeNotNull(logtide_event_ns) AS logtide_ns";
  for (size_t i = 0; i < p_.keys.size(); ++i) {
    std::string r;
    if (!p_.key_paths[i].empty()) {
      r = Raw(p_.key_paths[i]);
    } else {  // a derived key: its value as JSON text, an alias of its own
      r = fmt::format("logtide_key_{}_json", i + 1);
      if (aliases_.emplace(std::vector<std::string>{"", r}, r).second) {
        const std::string text = IfNull(AnyText(p_.key_exprs[i]), "''");
        raw_columns_.emplace_back(r, SqlComment(VisibleText(p_.keys[i] + "=" + p_.key_exprs[i].text), "  ").substr(2) + "  " + text);
      }
    }
    cols += fmt::format(
        ",\n  {0} AS logtide_key_{1}_rank,\n  if(logtide_key_{1}_rank = 3, toFloat64OrZero({2}) + 0, 0) "
        "AS logtide_key_{1}_number,\n  {3} AS logtide_key_{1}_text",
        RankOf(r), i + 1, r, TextOf(r));
  }
  for (size_t i = 0; i < p_.aggs.size(); ++i) {
    const PlanAggregate& a = p_.aggs[i];
    std::string v;
    const char* type = "String";  // of the column the aggregate reads
    if (a.spec.kind == AggKind::kCount) {
      if (a.filter.empty()) continue;
      v = "toUInt8(1)";  // a filter's count counts this column's values
      type = "UInt8";
    } else if (IsNumeric(a.spec.kind)) {
      const std::string r = Raw(a.path);
      v = NumberOf(r);
      type = "Float64";
    } else if (a.spec.kind == AggKind::kCountField) {
      const std::string r = Raw(a.path);
      v = "if(" + Present(r) + ", toUInt8(1), CAST(NULL AS Nullable(UInt8)))";
      type = "UInt8";
    } else if (a.spec.kind == AggKind::kFirst || a.spec.kind == AggKind::kLast) {
      const std::string r = Raw(a.path);
      v = "if(" + Present(r) + ", " + TextOf(r) + ", CAST(NULL AS Nullable(String)))";
    } else if (a.spec.kind == AggKind::kTopK) {
      // (kind, number, text), as keys sort; kind 0 (null or absent) is no value.
      const std::string r = Raw(a.path);
      v = fmt::format("({}, if({} = 3, toFloat64OrZero({}) + 0, 0), {})", RankOf(r), RankOf(r), r,
                      TextOf(r));
    } else {  // distinct counts: a value's kind and text
      const std::string r = Raw(a.path);
      v = "if(" + Present(r) + ", concat(toString(" + RankOf(r) + "), ':', " + TextOf(r) +
          "), CAST(NULL AS Nullable(String)))";
    }
    cols += ",\n";
    if (!a.filter.empty()) {  // a filter aggregate: only the events its condition holds for
      cols += SqlComment(VisibleText(a.spec.name + " filter " + a.filter[0].text), "  ");
      if (a.spec.kind == AggKind::kTopK) {  // a tuple is never NULL: kind 0 where it fails
        const std::string r = Raw(a.path);
        v = fmt::format("(if({}, {}, toUInt8(0)), if({} = 3, toFloat64OrZero({}) + 0, 0), {})",
                        Passes(a.filter[0]), RankOf(r), RankOf(r), r, TextOf(r));
      } else {
        v = fmt::format("if({}, {}, CAST(NULL AS Nullable({})))", Passes(a.filter[0]), v, type);
      }
    }
    cols += fmt::format("  {} AS logtide_value_{}", v, i + 1);
  }
  std::string where;
  for (const PlanExpr& x : p_.where)
    where += "\n  AND " + Passes(x) + "  -- --where " + VisibleText(x.text);
  const std::string time = TimeNs();
  std::string raw;
  for (const auto& [alias, expr] : raw_columns_) raw += "  " + expr + " AS " + alias + ",\n";
  std::string window;
  switch (w.kind) {
    case WindowSpec::Kind::kTumbling: {
      // Days and weeks in UTC are a grid of fixed windows: weeks from Monday 1969-12-29, three
      // days before 1970 (ClickHouseUntranslated refuses other calendar windows).
      const Nanos day = 86400 * kNanosPerSecond;
      Nanos size = w.size, offset = w.offset;
      if (w.calendar == WindowSpec::Calendar::kDays) size = w.count * day;
      if (w.calendar == WindowSpec::Calendar::kWeeks) {
        size = w.count * 7 * day;
        offset = ((w.offset - 3 * day) % size + size) % size;
      }
      window = fmt::format(
          "  -- Tumbling windows of {} ({} ns){}: each event in the one window starting at the\n"
          "  -- {}multiple of the size at or before it.\n"
          "  {} AS logtide_start_ns,\n  logtide_start_ns + {} AS logtide_end_ns",
          w.is_calendar() ? CalendarWindowText(w) : FormatDuration(size), size,
          w.is_calendar() ? " in UTC" : "",
          offset == 0 ? "" : fmt::format("offset ({} ns) plus a ", offset),
          GridFloor("logtide_ns", size, offset), I64(size));
      break;
    }
    case WindowSpec::Kind::kSliding: {
      const int64_t n = (w.size + w.slide - 1) / w.slide;
      window = fmt::format(
          "  -- Sliding windows of {} ({} ns) starting every {} ({} ns){}: each event in every\n"
          "  -- window with start <= t < start + size.\n"
          "  {} - {} * toInt64(arrayJoin(range({}))) AS logtide_start_ns,\n"
          "  logtide_start_ns + {} AS logtide_end_ns",
          FormatDuration(w.size), w.size, FormatDuration(w.slide), w.slide,
          w.offset == 0 ? std::string() : fmt::format(" from {} ns after each multiple", w.offset),
          GridFloor("logtide_ns", w.slide, w.offset), I64(w.slide), n, I64(w.size));
      break;
    }
    case WindowSpec::Kind::kSession:  // SessionQuery finds the sessions
      break;
  }
  return fmt::format(
      "FROM {}\n"
      "-- Each column an alias the next ones read, given inside ignore() (which is 0).\n"
      "WHERE ignore(\n"
      "  {} AS logtide_text,\n"
      "{}"
      "  {} AS logtide_event_ns,\n"
      "{}{}{}) = 0\n"
      "  AND logtide_event_ns IS NOT NULL  -- no usable time: a bad line{}{}\n",
      table, Trim("logtide_line"), raw, time, cols, window.empty() ? "" : ",\n" + window,
      fractions && !window.empty() ? ",\n" + Fractions().substr(0, Fractions().size() - 2) : "",
      w.kind == WindowSpec::Kind::kSliding ? "\n  AND logtide_ns < logtide_end_ns" : "", where);
}

std::string Renderer::TimeText(const std::string& bound) const {
  // RFC 3339 in UTC, a fraction of 3, 6 or 9 digits only when it is not zero.
  const std::string f = "logtide_" + bound + "_fraction";
  const std::string digits = "substring(toString(" + f + " + 1000000000), 2, ";
  return fmt::format(
      "concat(formatDateTime(toDateTime(toUInt32(intDiv(logtide_{0}_ns - {1}, {2}))), "
      "'%Y-%m-%dT%H:%M:%S', 'UTC'),\n"
      "    multiIf({1} = 0, '', {1} % 1000000 = 0, concat('.', {3}3)), {1} % 1000 = 0, "
      "concat('.', {3}6)),\n"
      "            concat('.', {3}9))), 'Z')",
      bound, f, I64(kNanosPerSecond), digits);
}

std::string Renderer::Columns(const std::vector<std::string>& aggs) const {
  std::string s = "  " + TimeText("start") + " AS `window_start`,\n  " + TimeText("end") +
                  " AS `window_end`";
  for (size_t i = 0; i < p_.keys.size(); ++i) {
    s += fmt::format(
        ",\n  if(logtide_key_{0}_rank = 0, CAST(NULL AS Nullable(String)), logtide_key_{0}_text) "
        "AS {1}",
        i + 1, ChIdent(p_.keys[i]));
  }
  for (size_t i = 0; i < aggs.size(); ++i) {
    s += ",\n";
    if (!p_.aggs[i].clickhouse_note.empty()) s += SqlComment(p_.aggs[i].clickhouse_note, "  ");
    s += "  " + aggs[i] + " AS " + ChIdent(p_.aggs[i].spec.name);
  }
  if (p_.emit == EmitMode::kUpdate)
    s += fmt::format(",\n  0 AS `revision`,\n  'on_time' AS `phase`,\n  {} AS `final`",
                     p_.lateness == 0 ? 1 : 0);
  return s;
}

std::string Renderer::Keys() const {
  std::string s;
  for (size_t i = 0; i < p_.keys.size(); ++i) {
    s += fmt::format("{1}logtide_key_{0}_rank, logtide_key_{0}_number, logtide_key_{0}_text",
                     i + 1, i ? ", " : "");
  }
  return s;
}

std::string Renderer::GroupBy() const {
  return "logtide_start_ns, logtide_end_ns" + (Keys().empty() ? "" : ", " + Keys());
}

std::string Renderer::OrderBy() const {
  return "logtide_end_ns, logtide_start_ns" + (Keys().empty() ? "" : ", " + Keys());
}

std::string Renderer::SessionQuery(const std::string& columns, const std::string& events,
                                   const std::string& source) const {
  const Nanos gap = p_.window.gap;
  const std::string keys = Keys();
  std::string fields = keys.empty() ? "" : keys + ",\n    ";
  fields += "logtide_event.1 AS logtide_ns, logtide_event.2 AS logtide_seq";
  for (size_t i = 0, element = 3; i < p_.aggs.size(); ++i) {
    if (HasValue(p_.aggs[i]))
      fields += fmt::format(", logtide_event.{} AS logtide_value_{}", element++, i + 1);
  }
  return fmt::format(
      "SELECT\n{}\n"
      "FROM (\n"
      "  SELECT\n    {},\n    logtide_session\n"
      "  FROM (\n"
      "    -- Sessions (gaps and islands): per key, the events in time order (then input order);\n"
      "    -- an event more than {} ({} ns) after the one before it starts a session, which ends\n"
      "    -- {} after its last event.\n"
      "    SELECT\n      {}{}arraySort(logtide_e -> (logtide_e.1, logtide_e.2), {}) AS logtide_events,\n"
      "      arrayCumSum(arrayMap((logtide_d, logtide_i) -> toUInt64(logtide_i = 1 OR logtide_d > {}),\n"
      "        arrayDifference(arrayMap(logtide_e -> logtide_e.1, logtide_events)),\n"
      "        arrayEnumerate(logtide_events))) AS logtide_sessions\n"
      "    {}{}"
      "  )\n"
      "  ARRAY JOIN logtide_events AS logtide_event, logtide_sessions AS logtide_session\n"
      ")\n"
      "GROUP BY {}logtide_session\n"
      "HAVING ignore(min(logtide_ns) AS logtide_start_ns, max(logtide_ns) + {} AS logtide_end_ns,\n"
      "{}) = 0\n"
      "ORDER BY {};\n",
      columns, fields, FormatDuration(gap), gap, FormatDuration(gap), keys,
      keys.empty() ? "" : ",\n      ", events, I64(gap), source,
      keys.empty() ? "" : "    GROUP BY " + keys + "\n", keys.empty() ? "" : keys + ", ",
      I64(gap), Fractions().substr(0, Fractions().size() - 2), OrderBy());
}

// The k most frequent of `values` (an array of (kind, number, text) tuples, kind 0 for none) as
// [text, count, error] triples: the largest count first, ties in key order; error 0 (exact).
std::string TopK(const std::string& values, int64_t k) {
  const std::string present = "arrayFilter(logtide_v -> logtide_v.1 > 0, " + values + ")";
  return fmt::format(
      "arrayMap(logtide_c -> (logtide_c.1.3, logtide_c.2, toUInt64(0)), arraySlice(arraySort(\n"
      "    logtide_c -> (-toInt64(logtide_c.2), logtide_c.1.1, logtide_c.1.2, logtide_c.1.3),\n"
      "    arrayMap(logtide_v -> (logtide_v, countEqual({0}, logtide_v)), arrayDistinct({0}))), 1, "
      "{1}))",
      present, k);
}

// The rank (1-based) of the q-quantile of n values by the nearest-rank rule, as logtide's
// (agg/quantile_sketch.h: QuantileRank): n - floor(n - q n), at least 1 and at most n.
std::string QuantileOf(const std::string& values, const std::string& n, double q) {
  return fmt::format(
      "if({1} = 0, CAST(NULL AS Nullable(Float64)), arrayElement(arraySort({0}), "
      "toUInt64(least(toFloat64({1}), greatest(toFloat64(1), toFloat64({1} - floor({1} - {1} * "
      "toFloat64({2}))))))))",
      values, n, SqlNumber(q));
}

std::string Renderer::Render() {
  // The aggregates over the events (one query) and over the partial states (the view).
  std::vector<std::string> direct, states, merged;
  for (size_t i = 0; i < p_.aggs.size(); ++i) {
    const PlanAggregate& a = p_.aggs[i];
    const std::string v = fmt::format("logtide_value_{}", i + 1);
    const std::string st = fmt::format("logtide_state_{}", i + 1);
    const std::string n = fmt::format("logtide_count_{}", i + 1);
    // Past the first and last, the -State of an aggregate of no value merges to a default, not
    // NULL: a count of the values beside it says when there is none.
    auto with_count = [&](const std::string& fn) {
      direct.push_back(fn + "(" + v + ")");
      states.push_back(fmt::format("{}State({}) AS {}, countState({}) AS {}", fn, v, st, v, n));
      merged.push_back(fmt::format("if(countMerge({0}) = 0, NULL, {1}Merge({2}))", n, fn, st));
    };
    switch (a.spec.kind) {
      case AggKind::kCount:
        if (a.filter.empty()) {
          direct.push_back("count()");
          states.push_back("countState() AS " + st);
          merged.push_back("countMerge(" + st + ")");
          break;
        }
        [[fallthrough]];  // with a filter: the count of its column's values
      case AggKind::kCountField:
        direct.push_back("count(" + v + ")");
        states.push_back(fmt::format("countState({}) AS {}", v, st));
        merged.push_back("countMerge(" + st + ")");
        break;
      case AggKind::kCountDistinct:
      case AggKind::kApproxDistinct:
        direct.push_back(IfNull("uniqExact(" + v + ")", "0"));  // of no value: NULL
        states.push_back(fmt::format("uniqExactState({}) AS {}", v, st));
        merged.push_back("uniqExactMerge(" + st + ")");
        break;
      case AggKind::kSum:
        with_count("sum");
        break;
      case AggKind::kMin:
        with_count("min");
        break;
      case AggKind::kMax:
        with_count("max");
        break;
      case AggKind::kAvg:
        with_count("avg");
        break;
      case AggKind::kFirst:
      case AggKind::kLast: {
        const char* fn = a.spec.kind == AggKind::kFirst ? "argMin" : "argMax";
        direct.push_back(fmt::format("{}({}, (logtide_ns, logtide_seq))", fn, v));
        states.push_back(fmt::format("{}State({}, (logtide_ns, logtide_seq)) AS {}, countState({}) "
                                     "AS {}",
                                     fn, v, st, v, n));
        merged.push_back(fmt::format("if(countMerge({0}) = 0, NULL, {1}Merge({2}))", n, fn, st));
        break;
      }
      case AggKind::kQuantile:
        direct.push_back(QuantileOf("groupArray(" + v + ")", "count(" + v + ")", a.spec.q));
        states.push_back(fmt::format("groupArrayState({}) AS {}", v, st));
        merged.push_back(QuantileOf("groupArrayMerge(" + st + ")",
                                    "length(groupArrayMerge(" + st + "))", a.spec.q));
        break;
      case AggKind::kTopK:
        direct.push_back(TopK("groupArray(" + v + ")", a.spec.k));
        states.push_back(fmt::format("groupArrayState({}) AS {}", v, st));
        merged.push_back(TopK("groupArrayMerge(" + st + ")", a.spec.k));
        break;
    }
  }
  std::string keys_raw;
  for (size_t i = 0; i < p_.keys.size(); ++i) {  // the plain keys (derived ones are of them)
    if (!p_.key_paths[i].empty())
      keys_raw += (keys_raw.empty() ? "" : ", ") + RawInline(p_.key_paths[i]);
  }
  const std::string shard = keys_raw.empty() ? "logtide_seq" : "cityHash64(" + keys_raw + ")";

  std::string s = SqlComment(
      "The query of\n  " + VisibleText(p_.command) +
      "\nas a script for a sharded ClickHouse cluster named logtide (its remote_servers entry; "
      "written against ClickHouse's documentation and tested with 18.16, Debian 12's). Run "
      "part 1 on every server, load the input as part 2 says, then run part 3 or part 4 on "
      "any server. Part 3 is one query over the distributed events; part 4 reads the partial "
      "states that a materialized view keeps per window and key on each shard as lines are "
      "inserted, merged with the -Merge combinators: both give the records logtide writes when "
      "no event is late, with its columns, names and order (counts as numbers when the client "
      "runs with --output_format_json_quote_64bit_integers=0). A batch query has no watermark: "
      "an event logtide drops as late counts here like any other.\n"
      "Each line is stored as its text and its fields are read with visitParamExtractRaw, "
      "which finds the first \"name\": in the text: the name must be written as given (no "
      "escapes in it, no space before its colon), a field of the same name nested in an "
      "object earlier in the line is found first, and so is the first of a name written "
      "twice; 18.16 reads a string ending in an escaped backslash as no value. A line that is not a JSON object is a bad "
      "line only when its time cannot be read. Event times are nanoseconds since 1970 (RFC "
      "3339 times to the nanosecond, read from 1970 to 2105, the range of ClickHouse's "
      "DateTime; epoch numbers with a fraction as doubles). Keys and first and last values "
      "come out as text: a string as its characters, a number as the double it is, true or "
      "false, an object or array as written (two spellings of one object are two values), "
      "and null as null; final is 1 or 0.");
  s += "\n-- [1/4] Tables: run on every server of the cluster (clickhouse-client -n < part1.sql).\n";
  s += SqlComment(
      "Each shard's events, one input line per row (logtide_seq: its place in the input, for ties of "
      "first and last); the Distributed table spreads inserted rows over the shards by a hash "
      "of the --by keys' text.");
  s += "CREATE TABLE logtide_events_local (logtide_seq UInt64, logtide_line String)\n"
       "  ENGINE = MergeTree ORDER BY logtide_seq;\n";
  s += "CREATE TABLE logtide_events AS logtide_events_local\n"
       "  ENGINE = Distributed(logtide, currentDatabase(), logtide_events_local,\n    " +
       shard + ");\n";
  s += SqlComment(
      "The partial aggregates of each shard's events per window and key, which a materialized "
      "view adds to as lines are inserted and the AggregatingMergeTree merges.");
  std::string state_cols;
  for (const std::string& x : states) state_cols += ",\n  " + x;
  const bool sessions = p_.window.kind == WindowSpec::Kind::kSession;
  if (sessions) {
    // A session's bounds depend on every event of its key: the view keeps them all, per key.
    s += SqlComment("Session windows: the view keeps each key's events (time, place, aggregate "
                    "inputs), merged as arrays; the sessions are found when it is read.");
    fmt::format_to(std::back_inserter(s),
                   "CREATE MATERIALIZED VIEW logtide_states_local\n"
                   "  ENGINE = AggregatingMergeTree ORDER BY ({})\n"
                   "AS SELECT\n  {}{}groupArrayState({}) AS logtide_state\n{}{};\n",
                   Keys().empty() ? "tuple()" : Keys(), Keys(), Keys().empty() ? "" : ",\n  ",
                   EventTuple(), Windowed("logtide_events_local", false),
                   Keys().empty() ? "" : "GROUP BY " + Keys());
  } else {
    fmt::format_to(std::back_inserter(s),
                   "CREATE MATERIALIZED VIEW logtide_states_local\n"
                   "  ENGINE = AggregatingMergeTree ORDER BY ({})\n"
                   "AS SELECT\n  {}{}\n{}GROUP BY {};\n",
                   GroupBy(), GroupBy(), state_cols, Windowed("logtide_events_local", false),
                   GroupBy());
  }
  s += "CREATE TABLE logtide_states AS logtide_states_local\n"
       "  ENGINE = Distributed(logtide, currentDatabase(), logtide_states_local);\n";

  s += "\n-- [2/4] Load: each line's text, numbered, through the Distributed table (TabSeparated "
       "with a\n-- backslash, tab and carriage return escaped keeps every byte of a line):\n";
  std::string files;
  for (const std::string& f : p_.inputs) files += " " + VisibleText(ShellWord(f));
  // Written line by line, not folded: a fold inside the awk program would change it.
  s += "--   sed -e 's/\\\\/\\\\\\\\/g' -e 's/\\t/\\\\t/g' -e 's/\\r/\\\\r/g'" + files +
       " |\n"
       "--     awk '{ print NR \"\\t\" $0 }' |\n"
       "--     clickhouse-client --query 'INSERT INTO logtide_events FORMAT TabSeparated'\n";
  s += SqlComment(
      "(decompress .gz and .zst inputs first; read standard input as -; add "
      "--insert_distributed_sync=1 to have the rows on their shards when the command returns)");
  s += "\n-- [3/4] The records, as one query over the distributed events.\n";
  if (sessions) {
    s += SessionQuery(Columns(direct), "groupArray(" + EventTuple() + ")",
                      Windowed("logtide_events", false));
    s += "\n-- [4/4] The records, from the events the materialized view keeps on every shard.\n";
    return s + SessionQuery(Columns(direct), "groupArrayMerge(logtide_state)",
                            "FROM logtide_states\n");
  }
  fmt::format_to(std::back_inserter(s), "SELECT\n{}\n{}GROUP BY {}\nORDER BY {};\n",
                 Columns(direct), Windowed("logtide_events", true), GroupBy(), OrderBy());
  s += "\n-- [4/4] The records, from the partial states of the materialized view on every "
       "shard.\n";
  fmt::format_to(std::back_inserter(s),
                 "SELECT\n{}\nFROM logtide_states\nWHERE ignore(\n{}) = 0\nGROUP BY {}\nORDER BY {};\n",
                 Columns(merged), Fractions().substr(0, Fractions().size() - 2), GroupBy(),
                 OrderBy());
  return s;
}

}  // namespace

std::vector<std::string> ClickHouseUntranslated(const Query& c) {
  std::vector<std::string> out;
  const size_t inputs = std::max<size_t>(c.inputs.size(), 1);
  for (size_t i = 0; i < inputs; ++i) {
    const std::string& name = c.inputs.empty() ? std::string("-") : c.inputs[i];
    if (c.FormatOf(name) != InputFormat::kNdjson) {
      out.push_back("--input-format " + std::string(InputFormatName(c.FormatOf(name))) +
                    ": the script reads each line as JSON text");
      break;
    }
  }
  const WindowSpec& w = c.window;
  // Days and weeks in UTC are fixed windows; months and local time are not translated.
  const bool fixed_days = !w.has_zone && (w.calendar == WindowSpec::Calendar::kDays ||
                                          w.calendar == WindowSpec::Calendar::kWeeks);
  if ((w.is_calendar() && !fixed_days) || w.has_zone)
    out.push_back("--window " + w.ToString() +
                  (w.has_zone ? " --tz " + ShellWord(w.zone.name()) : "") +
                  ": months, local calendars and time zones are not translated for ClickHouse");
  if (c.local_times) out.push_back("--local-times: not translated for ClickHouse");
  if (c.window_label) out.push_back("--window-label: not translated for ClickHouse");
  if (c.early > 0)
    out.push_back("--early " + FormatDuration(c.early) +
                  ": a batch query has no watermark, so no provisional record");
  if (c.early_every > 0)
    out.push_back("--early-every " + FormatDuration(c.early_every) +
                  ": a batch query has no wall clock of arrival, so no provisional record");
  const std::string& tf = c.time_format;
  if (tf != "auto" && tf != "rfc3339" && tf != "epoch_s" && tf != "epoch_ms" &&
      tf != "epoch_us" && tf != "epoch_ns")
    out.push_back("--time-format " + ShellWord(tf) + ": patterns are not translated for ClickHouse");
  for (const std::string& x : c.having)
    out.push_back("--having " + ShellWord(x) + ": --having is not yet translated for ClickHouse");
  // A path ClickHouse's visitParam functions can read: keys only, each matched as written.
  auto check_path = [&](const std::string& flag, const std::string& text) {
    for (const PathSegment& seg : SplitPath(text)) {
      if (seg.is_index) {
        out.push_back(flag + ": the path " + text + " has an array element, which "
                      "visitParamExtractRaw cannot address");
        return;
      }
      for (char ch : seg.key) {
        if (ch == '"' || ch == '\\' || static_cast<unsigned char>(ch) < 0x20) {
          out.push_back(flag + ": the field name " + VisibleText(seg.key) + " holds a quote, backslash or "
                        "control character, which a line writes escaped and "
                        "visitParamExtractRaw matches as written");
          return;
        }
      }
    }
  };
  // An expression: its paths, and the functions ClickHouse 18.16 computes otherwise.
  auto check_expr = [&](const std::string& flag, const std::string& text) {
    PlanExpr tree;
    if (!ExprTree(text, &tree).ok()) {
      out.push_back(flag + ": not an expression");  // not for a checked query
      return;
    }
    std::vector<const PlanExpr*> todo = {&tree};
    bool substr = false, group = false, variable = false;
    while (!todo.empty()) {
      const PlanExpr* e = todo.back();
      todo.pop_back();
      if (e->op == PlanExpr::Op::kField) check_path(flag, FieldPathText(e->path));
      substr |= e->op == PlanExpr::Op::kSubstr;
      group |= e->op == PlanExpr::Op::kRegexpExtract && e->args.size() > 2 &&
               e->args[2].literal.i > 1;
      // ClickHouse takes a pattern, a rewrite and a separator as constants only.
      const bool constant_args = e->op == PlanExpr::Op::kRegexpReplace ||
                                 e->op == PlanExpr::Op::kRegexpExtract ||
                                 e->op == PlanExpr::Op::kSplitPart;
      for (size_t i = 1; constant_args && i < std::min<size_t>(e->args.size(), 3); ++i) {
        if (e->op != PlanExpr::Op::kRegexpReplace && i == 2) break;
        if (e->args[i].op != PlanExpr::Op::kLiteral) variable = true;
      }
      for (const PlanExpr& a : e->args) todo.push_back(&a);
    }
    if (variable) {
      out.push_back(flag + ": a pattern, rewrite or separator that is not a literal, which "
                    "ClickHouse's replaceRegexpAll, extract and splitByString take as constants "
                    "only");
    }
    if (substr) {
      out.push_back(flag + ": substr, which ClickHouse 18.16's substringUTF8 takes only constant "
                    "offsets and lengths for");
    }
    if (group) {
      out.push_back(flag + ": regexp_extract of a group past the first, which ClickHouse "
                    "18.16's extract() cannot give");
    }
  };
  check_path("--time " + ShellWord(c.time_field), c.time_field);
  for (const std::string& x : c.where) check_expr("--where " + ShellWord(x), x);
  for (size_t i = 0; i < c.by.size(); ++i) {
    if (i < c.by_expr.size() && !c.by_expr[i].empty()) {
      check_expr("--by " + ShellWord(c.by[i] + "=" + c.by_expr[i]), c.by_expr[i]);
    } else {
      check_path("--by " + ShellWord(c.by[i]), c.by[i]);
    }
  }
  for (const AggSpec& a : c.aggs) {
    if (!a.filter.empty()) check_expr("--agg " + ShellWord(a.text), a.filter);
    if (!a.field.empty()) check_path("--agg " + ShellWord(a.text), a.field);
  }
  // The script's own columns are named logtide_*: an output name of that form could be taken
  // for one of them.
  std::vector<std::string> names = c.by;
  for (const AggSpec& a : c.aggs) names.push_back(a.name);
  for (const std::string& n : names) {
    if (n.rfind("logtide_", 0) == 0)
      out.push_back(VisibleText(ShellWord(n)) + ": output names starting logtide_ are the script's own columns");
  }
  return out;
}

std::string ClickHouseSql(const QueryPlan& plan) { return Renderer(plan).Render(); }

}  // namespace logtide
