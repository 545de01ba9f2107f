#include "plan/query_plan.h"

#include <absl/time/time.h>
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "agg/sketches.h"
#include "expr/expr.h"
#include "plan/clickhouse_sql.h"
#include "plan/flink_sql.h"
#include "plan/sql_text.h"
#include "plan/time_pattern.h"
#include "time/duration.h"
#include "util/quote.h"

namespace logtide {
namespace {

// Returns the use of a field used both as `a` and as `b`: the time keeps its own reading, and a
// field that holds used fields (as an object or an array) and is also used itself, or holds them
// as an object in some events and as an array in others, is read whole; any value includes the
// numbers.
FieldUse Merge(FieldUse a, FieldUse b) {
  if (a == b) return a;
  if (a == FieldUse::kTime || b == FieldUse::kTime) return FieldUse::kTime;
  if (a == FieldUse::kRecord || a == FieldUse::kArray || b == FieldUse::kRecord ||
      b == FieldUse::kArray) {
    return FieldUse::kAny;
  }
  if (a == FieldUse::kAny || b == FieldUse::kAny) return FieldUse::kAny;
  return FieldUse::kNumber;
}

// Adds `path` with `use` to the tree, creating the records and arrays on its way.
void AddField(std::vector<SourceField>* fields, const FieldPath& path, FieldUse use) {
  std::vector<SourceField>* level = fields;
  for (size_t i = 0; i < path.size(); ++i) {
    // What this segment's field is used as: the value itself, or what holds the next segment.
    const FieldUse here = i + 1 == path.size()   ? use
                          : path[i + 1].is_index ? FieldUse::kArray
                                                 : FieldUse::kRecord;
    SourceField* found = nullptr;
    for (SourceField& f : *level) {
      if (SameSegment(f.segment, path[i])) found = &f;
    }
    if (found == nullptr) {
      level->push_back(SourceField{path[i], here, {}});
      found = &level->back();
    } else {
      found->use = Merge(found->use, here);
    }
    level = &found->children;
  }
}

bool IsNumeric(AggKind k) {
  return k == AggKind::kSum || k == AggKind::kMin || k == AggKind::kMax || k == AggKind::kAvg ||
         k == AggKind::kQuantile;
}

// Fills in what DuckDB and Flink SQL give for `a`, against what logtide gives.
void Annotate(PlanAggregate* a) {
  switch (a->spec.kind) {
    case AggKind::kCount:
    case AggKind::kCountField:
    case AggKind::kMin:
    case AggKind::kMax:
    case AggKind::kAvg:
      break;
    case AggKind::kSum:
      a->clickhouse_note = a->duckdb_note = a->flink_note =
          "a sum of doubles; logtide sums integers exactly, as an integer (the same value below "
          "2^53)";
      break;
    case AggKind::kCountDistinct:
      a->duckdb_note = a->flink_note =
          "values compared as JSON text: 1 and 1.0, or one object with its keys in two orders, "
          "are two values (logtide compares JSON values: one)";
      a->clickhouse_note =
          "uniqExact over each value's kind and text: numbers by their double value, objects "
          "and arrays as written (one object with its keys in two orders is two values; "
          "logtide compares JSON values: one)";
      break;
    case AggKind::kFirst:
    case AggKind::kLast: {
      const bool first = a->spec.kind == AggKind::kFirst;
      a->duckdb_note = fmt::format(
          "among events with the same time, the {} in the input; with several files logtide "
          "reads them merged by time, so ties between files may be broken otherwise",
          first ? "first" : "last");
      a->clickhouse_note = fmt::format(
          "among events with the same time, the {} loaded (logtide_seq); logtide reads several "
          "files merged by time, so ties between files may be broken otherwise",
          first ? "first" : "last");
      a->flink_note = fmt::format(
          "{} takes the {} value in arrival order; logtide takes the value at the {} event time",
          first ? "FIRST_VALUE" : "LAST_VALUE", first ? "first" : "last",
          first ? "smallest" : "largest");
      break;
    }
    case AggKind::kQuantile:
      a->clickhouse_note = a->duckdb_note =
          "exact nearest rank; logtide's is the same up to 64 values, then within 1% of it";
      a->flink_note =
          "Flink SQL has no percentile aggregate: register one (a user-defined aggregate "
          "function over a DDSketch or t-digest) and call it here";
      a->flink_supported = false;
      break;
    case AggKind::kApproxDistinct:
      a->clickhouse_note =
          "uniqExact: exact; logtide's is the same up to 1024 distinct values, then an estimate "
          "within about 2.5% (ClickHouse's uniq and uniqHLL12 are cheaper estimates, other ones)";
      a->duckdb_note =
          "exact; logtide's is the same up to 1024 distinct values, then an estimate within "
          "about 2.5%. approx_count_distinct(...) is DuckDB's cheaper estimate, another one "
          "(not exact even for a few values)";
      a->flink_note =
          "COUNT(DISTINCT) is exact and keeps every distinct value in state; logtide estimates "
          "past 1024 distinct values";
      break;
    case AggKind::kTopK:
      a->clickhouse_note = fmt::format(
          "exact counts over every value of the window (kept with groupArray), as [value, "
          "count, error] triples, error 0; logtide's are the same while a window has at most {} "
          "distinct values",
          TopKSketch::CapacityFor(a->spec.k));
      a->duckdb_note = fmt::format(
          "exact counts, error 0; logtide's are the same while a window has at most {} distinct "
          "values",
          TopKSketch::CapacityFor(a->spec.k));
      a->flink_note =
          "Flink SQL has no aggregate returning the most frequent values: a Top-N query "
          "(ROW_NUMBER() OVER (PARTITION BY window, key ORDER BY a count per value DESC)) gives "
          "them as rows";
      a->flink_supported = false;
      break;
  }
}

// Returns node `n` of `e` as a plan tree, with the type each node gives.
PlanExpr ToPlan(const Expr& e, int n) {
  using Op = PlanExpr::Op;
  using Type = PlanExpr::Type;
  auto literal = [](const ValueRef& v) {
    PlanLiteral l;
    l.type = v.type;
    l.is_int = v.is_int;
    l.i = v.i;
    l.d = v.is_int ? static_cast<double>(v.i) : v.d;
    if (v.type == ValueType::kString) l.s = std::string(v.s);
    return l;
  };
  const Expr::NodeView v = e.node(n);
  PlanExpr p;
  p.op = v.op;
  for (int a : v.args) p.args.push_back(ToPlan(e, a));
  switch (p.op) {
    case Op::kField:
      p.type = Type::kAny;
      p.path = SplitPath(e.paths()[v.path]);
      break;
    case Op::kLiteral:
      p.literal = literal(v.literal);
      p.type = v.literal.type == ValueType::kNull     ? Type::kNull
               : v.literal.type == ValueType::kNumber ? Type::kNumber
               : v.literal.type == ValueType::kString ? Type::kString
                                                      : Type::kBool;
      break;
    case Op::kIn:
      for (const ValueRef& item : v.list) p.list.push_back(literal(item));
      p.type = Type::kBool;
      break;
    case Op::kMatches:
      p.pattern = std::string(v.pattern);
      p.args.resize(1);  // the pattern's literal is in `pattern`
      p.type = Type::kBool;
      break;
    case Op::kAdd:
    case Op::kSub:
    case Op::kMul:
    case Op::kDiv:
    case Op::kMod:
    case Op::kNeg:
    case Op::kFloor:
    case Op::kCeil:
    case Op::kRound:
    case Op::kAbs:
    case Op::kLen:
      p.type = Type::kNumber;
      break;
    case Op::kLower:
    case Op::kUpper:
    case Op::kSubstr:
    case Op::kRegexpReplace:
    case Op::kRegexpExtract:
    case Op::kSplitPart:
    case Op::kConcat:
      p.type = Type::kString;
      break;
    case Op::kIf:
    case Op::kCoalesce: {
      // The branches' (operands') one type, null aside; kAny when they differ or one can hold
      // any value (a field).
      p.type = Type::kNull;
      for (size_t i = p.op == Op::kIf ? 1 : 0; i < p.args.size(); ++i) {
        const Type t = p.args[i].type;
        if (t == Type::kNull) continue;
        p.type = p.type == Type::kNull || p.type == t ? t : Type::kAny;
      }
      break;
    }
    default:
      p.type = Type::kBool;
  }
  return p;
}

bool Uses(const PlanExpr& e, PlanExpr::Op op) {
  if (e.op == op) return true;
  for (const PlanExpr& a : e.args) {
    if (Uses(a, op)) return true;
  }
  return false;
}

// Returns whether `e` has a split_part counting from the end.
bool UsesSplitFromEnd(const PlanExpr& e) {
  if (e.op == PlanExpr::Op::kSplitPart && e.args[2].literal.i < 0) return true;
  for (const PlanExpr& a : e.args) {
    if (UsesSplitFromEnd(a)) return true;
  }
  return false;
}

// Appends the plan tree of the canonical expression `text` (`flag` gave it) to *out, its fields
// added to `fields`. Errors: InvalidArgument when it does not parse (never
// for a checked query, whose expressions are canonical text).
Status ExprPlan(std::string_view flag, const std::string& text, std::vector<SourceField>* fields,
                std::vector<PlanExpr>* out) {
  Expr e;
  if (Status s = Expr::Parse(text, &e); !s.ok())
    return Status::InvalidArgument(fmt::format("{} {}: {}", flag, QuoteForMessage(text, /*backslash_quotes=*/true), s.message()));
  for (const std::string& path : e.paths()) AddField(fields, SplitPath(path), FieldUse::kAny);
  out->push_back(ToPlan(e, e.root()));
  out->back().text = text;
  return Status::Ok();
}

// Makes the fields of `e` (a --having tree) the record's fields they name: one key, the name.
Status ToRecordFields(const RecordFields& fields, PlanExpr* e) {
  if (e->op == PlanExpr::Op::kField) {
    const int f = FindRecordField(fields, FieldPathText(e->path));
    if (f < 0) return Status::InvalidArgument("no field of the records");  // ValidateConfig's
    PathSegment seg;
    seg.key = fields.names[static_cast<size_t>(f)];
    e->path = FieldPath{seg};
  }
  for (PlanExpr& a : e->args) {
    if (Status s = ToRecordFields(fields, &a); !s.ok()) return s;
  }
  return Status::Ok();
}

// Returns how --time-format `format` reads the event time.
PlanTime::Kind TimeKind(const std::string& format) {
  if (format == "auto") return PlanTime::Kind::kAuto;
  if (format == "rfc3339") return PlanTime::Kind::kRfc3339;
  if (format == "epoch_s" || format == "epoch_ms" || format == "epoch_us" || format == "epoch_ns")
    return PlanTime::Kind::kEpoch;
  return PlanTime::Kind::kPattern;
}


// Returns whether a --time-format pattern reads an offset or an instant (%z, %Z or %s), so that
// --tz does not make its times local.
bool PatternHasOffset(const std::string& pattern) {
  for (size_t i = 0; i + 1 < pattern.size(); ++i) {
    if (pattern[i] != '%') continue;
    const char d = pattern[++i];
    if (d == 'z' || d == 'Z' || d == 's') return true;
  }
  return false;
}

// One change of a zone's clock: at instant `at` (as text, `when`) the local clock jumps from
// civil time `from` to `to`, by `change` seconds (> 0 skips, < 0 goes back).
struct ClockChange {
  absl::Time at;
  std::string when;
  absl::CivilSecond from, to;
  int64_t change;
};

// Calls check(change) for each change of `zone`'s clock in the range of logtide's times
// (1677-2262), in order, until it returns a reason; returns that reason, or "".
template <typename Check>
std::string FirstClockChange(const absl::TimeZone& zone, Check check) {
  const absl::Time last = absl::FromUnixNanos(std::numeric_limits<int64_t>::max());
  absl::Time at = absl::FromUnixNanos(std::numeric_limits<int64_t>::min());
  absl::TimeZone::CivilTransition tr;
  for (int i = 0; i < 100'000 && zone.NextTransition(at, &tr); ++i) {
    const absl::TimeZone::TimeInfo info = zone.At(tr.to);
    at = info.kind == absl::TimeZone::TimeInfo::REPEATED ? info.trans : info.pre;
    if (at > last) break;
    const int64_t change = tr.to - tr.from;
    if (change == 0) continue;  // another abbreviation only
    std::string why = check(ClockChange{
        at, absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", at, absl::UTCTimeZone()), tr.from, tr.to,
        change});
    if (!why.empty()) return why;
  }
  return "";
}

// Returns why the DuckDB rendering of calendar window `w`, or of local times in its zone, could
// give other bounds or instants than logtide, or "" when it gives the same. The rendering
// (duckdb_sql.cc) names the zone to DuckDB by its IANA name (a zone loaded from a path, `--tz
// local` from /etc/localtime, has none), reads it only through DuckDB's instant-to-local
// conversion, and finds the instants of a local time from the offsets one day before and one
// day after it: exact where the offset changes at most once in any two days and never by a day
// or more, and, for calendar windows, where a fall-back change moves the clock back by less than
// a day and less than a wall-clock size (so that an event is at most one window past the bounds
// of its local time). Walks the zone's changes in the range of logtide's times (1677-2262).
// Returns why `name` is not a zone's IANA name, which the SQL engines' zones need, or "".
std::string ZoneNameRefusal(const std::string& name, const char* engine) {
  if (name.empty() || name[0] == '/' || name[0] == ':' || name == "localtime") {
    return fmt::format(
        "the zone is named {}, not by an IANA name, which {}'s time zones need: give --tz the "
        "zone's name",
        ShellWord(name), engine);
  }
  return "";
}

std::string DuckDbZoneRefusal(const WindowSpec& w) {
  if (std::string why = ZoneNameRefusal(w.zone.name(), "DuckDB"); !why.empty()) return why;
  const int64_t step =
      w.calendar == WindowSpec::Calendar::kWallClock ? w.size / kNanosPerSecond : int64_t{86400};
  absl::Time previous = absl::InfinitePast();
  return FirstClockChange(w.zone.zone(), [&](const ClockChange& c) -> std::string {
    if (previous != absl::InfinitePast() && c.at - previous <= absl::Hours(48)) {
      return fmt::format(
          "the zone's UTC offset changes twice within two days (at {} and {}), and the "
          "rendering finds a local time's instants from the offsets one day either side of it",
          absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", previous, absl::UTCTimeZone()), c.when);
    }
    if (w.is_calendar() && -c.change >= step) {
      return fmt::format(
          "at {} the zone's clock goes back by {}, not less than {}, and the rendering moves an "
          "event at most one window past the window of its local time",
          c.when, FormatDuration(-c.change * kNanosPerSecond),
          step == 86400 ? std::string("a day") : "the window's step " + FormatDuration(w.size));
    }
    if (c.change >= 86400) {
      return fmt::format(
          "at {} the zone's clock skips {}, and the rendering finds a local time's instants from "
          "the offsets one day either side of it",
          c.when, FormatDuration(c.change * kNanosPerSecond));
    }
    previous = c.at;
    return "";
  });
}

// Returns why Flink's windows of calendar window `w` (FlinkWindowSize and FlinkWindowOffset
// over a TIMESTAMP_LTZ time in 'table.local-time-zone') could hold other events or have other
// bounds than logtide's, or "" when they are the same. Flink puts an event in the window of its
// local wall-clock time on the grid offset + k * size of local time since 1970-01-01 00:00 (its
// TimeWindowUtil), and the rendering casts a bound to TIMESTAMP_LTZ, which is Java's
// LocalDateTime.atZone: the earlier instant of a repeated time, a skipped time moved on by the
// skip. logtide's bound is the first instant the clock shows that time or later, and an event
// after a fall-back change took the clock back across its window's end is in the next window.
// The two agree unless a bound is strictly inside a skipped or repeated range of local times;
// logtide's windows of an hour or less keep their length, so they also need every skip to be
// whole windows from a bound, and no repeat at all. Months are no Flink window. Walks the zone's
// changes in the range of logtide's times (1677-2262).
std::string FlinkCalendarRefusal(const WindowSpec& w) {
  if (w.calendar == WindowSpec::Calendar::kMonths) {
    return "Flink SQL has no window of months (its window sizes are intervals of days and less)";
  }
  if (std::string why = ZoneNameRefusal(w.zone.name(), "Flink"); !why.empty()) return why;
  const absl::CivilSecond epoch(1970, 1, 1);
  const int64_t size = FlinkWindowSize(w) / kNanosPerSecond;
  const int64_t base = FlinkWindowOffset(w) / kNanosPerSecond;
  const bool grid = w.calendar == WindowSpec::Calendar::kLocalGrid;
  // The first bound after local time `c` (seconds since 1970-01-01 00:00 local).
  auto next_bound = [&](int64_t c) {
    const int64_t r = ((c - base) % size + size) % size;
    return c - r + size;
  };
  return FirstClockChange(w.zone.zone(), [&](const ClockChange& c) -> std::string {
    const std::string by = FormatDuration(std::abs(c.change) * kNanosPerSecond);
    if (grid && c.change < 0) {
      return fmt::format(
          "at {} the zone's clock goes back by {}: Flink's windows follow the local wall clock, "
          "so the repeated {} are in one window there, where logtide's windows of {} keep their "
          "length",
          c.when, by, by, FormatDuration(w.size));
    }
    const int64_t from = c.from - epoch, to = c.to - epoch;
    const int64_t lo = std::min(from, to), hi = std::max(from, to);
    if (grid && (c.change % size != 0 || next_bound(from - 1) != from)) {
      return fmt::format(
          "at {} the zone's clock skips {}, which moves logtide's windows of {} (fixed lengths "
          "from local midnight) off Flink's grid on the local wall clock",
          c.when, by, FormatDuration(w.size));
    }
    const int64_t bound = next_bound(lo);
    if (c.change < -3600 && bound == hi) {
      return fmt::format(
          "at {} the zone's clock goes back by {} from a window's end: Flink fires that window "
          "an hour after the end's first instant (its TimeWindowUtil), before the repeated time "
          "is over, and drops the window's later events as late",
          c.when, by);
    }
    if (bound < hi) {
      return fmt::format(
          "at {} the zone's clock {} {}, and a window bound is a local time in between: Flink "
          "takes that bound {} and puts an event in the window of its local time, where "
          "logtide's bound is the first instant the clock shows it or later",
          c.when, c.change > 0 ? "skips" : "goes back by", by,
          c.change > 0 ? "as that time moved on by the skip" : "as its earlier instant");
    }
    return "";
  });
}

}  // namespace

Status ExprTree(const std::string& text, PlanExpr* out) {
  Expr e;
  if (Status s = Expr::Parse(text, &e); !s.ok()) return s;
  *out = ToPlan(e, e.root());
  out->text = text;
  return Status::Ok();
}

std::string ShellWord(const std::string& s) {
  bool plain = !s.empty();
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) ||
          std::string_view("_./:=,+-").find(c) != std::string_view::npos)) {
      plain = false;
    }
  }
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool SameSegment(const PathSegment& a, const PathSegment& b) {
  return a.is_index == b.is_index && (a.is_index ? a.index == b.index : a.key == b.key);
}

FieldPath SplitPath(const std::string& path) {
  FieldPath out;
  size_t error_at;
  if (!ParseFieldPath(path, &out, &error_at).ok()) out.clear();
  return out;
}

bool HasExpressions(const QueryPlan& p) {
  bool any = !p.where.empty() || !p.having.empty();
  for (const FieldPath& path : p.key_paths) any |= path.empty();
  for (const PlanAggregate& a : p.aggs) any |= !a.filter.empty();
  return any;
}

std::string CommandLine(const Query& c) {
  std::string s = "logtide --window " + c.window.ToString();
  if (c.window.has_zone) s += " --tz " + ShellWord(c.window.zone.name());
  if (c.local_times) s += " --local-times";
  if (c.window_label) s += " --window-label";
  if (c.input_format != InputFormat::kNdjson) {
    s += " --input-format ";
    s += InputFormatName(c.input_format);
  }
  for (const auto& [name, format] : c.input_formats)
    s += " --input-format " + ShellWord(name + "=" + std::string(InputFormatName(format)));
  if (c.time_field != "ts") s += " --time " + ShellWord(c.time_field);
  if (c.time_format != "auto") s += " --time-format " + ShellWord(c.time_format);
  for (size_t i = 0; i < c.by.size(); ++i) {
    const bool derived = i < c.by_expr.size() && !c.by_expr[i].empty();
    s += " --by " + ShellWord(derived ? c.by[i] + "=" + c.by_expr[i] : c.by[i]);
  }
  for (const AggSpec& a : c.aggs)
    s += " --agg " + ShellWord(a.text.empty() ? CanonicalAggText(a) : a.text);
  for (const std::string& w : c.where) s += " --where " + ShellWord(w);
  for (const std::string& h : c.having) s += " --having " + ShellWord(h);
  if (c.delay > 0) s += " --delay " + FormatDuration(c.delay);
  if (c.lateness > 0) s += " --lateness " + FormatDuration(c.lateness);
  if (c.idle_timeout > 0) s += " --idle-timeout " + FormatDuration(c.idle_timeout);
  if (c.emit == EmitMode::kUpdate) s += " --emit update";
  if (c.early > 0) s += " --early " + FormatDuration(c.early);
  if (c.early_every > 0) s += " --early-every " + FormatDuration(c.early_every);
  if (c.changes != ChangeFormat::kSnapshot) {
    s += " --changes ";
    s += ChangeFormatName(c.changes);
  }
  for (const std::string& in : c.inputs) s += " " + ShellWord(in);
  return s;
}

std::vector<std::string> Untranslated(const Query& c, SqlDialect dialect) {
  if (dialect == SqlDialect::kClickHouse) return ClickHouseUntranslated(c);
  std::vector<std::string> out;
  // The twins read NDJSON: DuckDB's with read_ndjson and every field typed as JSON (json_type),
  // Flink's with the 'json' format. read_csv sniffs its columns' types, which are not
  // lineformat/'s rules, and neither dialect reads logfmt.
  // Each format other than NDJSON that some input's lines are in, by the flag that says so.
  std::vector<std::pair<std::string, InputFormat>> formats;
  const size_t inputs = std::max<size_t>(c.inputs.size(), 1);  // none: standard input
  for (size_t i = 0; i < inputs; ++i) {
    const std::string& name = c.inputs.empty() ? std::string("-") : c.inputs[i];
    const InputFormat f = c.FormatOf(name);
    std::string value(InputFormatName(f));
    for (const auto& [named, format] : c.input_formats) {
      if (named == name) value = ShellWord(name + "=" + value);
    }
    const std::string flag = "--input-format " + value;
    if (f != InputFormat::kNdjson &&
        std::find(formats.begin(), formats.end(), std::pair{flag, f}) == formats.end())
      formats.emplace_back(flag, f);
  }
  for (const auto& [flag, format] : formats) {
    if (dialect == SqlDialect::kDuckDb) {
      out.push_back(flag +
                    (format == InputFormat::kLogfmt
                         ? ": DuckDB has no logfmt reader"
                         : ": the twin reads every field as JSON (read_ndjson), and DuckDB's "
                           "read_csv types columns by sniffing them, not as logtide types a "
                           "field: convert the input to NDJSON to compare"));
    } else {
      out.push_back(flag + (format == InputFormat::kLogfmt
                                ? ": Flink SQL has no logfmt format"
                                : ": Flink SQL's csv format reads no header line, which names "
                                  "the fields here"));
    }
  }
  if (c.early > 0) {
    out.push_back("--early " + FormatDuration(c.early) +
                  (dialect == SqlDialect::kDuckDb
                       ? ": a batch query has no watermark, so no provisional record before a "
                         "window's end"
                       : ": Flink SQL's early firing (table.exec.emit.early-fire) fires on the "
                         "wall clock, not when the watermark passes start + k*DUR, and is "
                         "refused for session windows"));
  }
  // Flink SQL's early firing (table.exec.emit.early-fire) is this trigger: every DUR of
  // processing time, the windows and keys that changed. It is for TUMBLE and HOP in GROUP BY.
  if (c.early_every > 0 && (dialect == SqlDialect::kDuckDb || c.window.is_session())) {
    out.push_back("--early-every " + FormatDuration(c.early_every) +
                  (dialect == SqlDialect::kDuckDb
                       ? ": a batch query has no wall clock of arrival, so no provisional record "
                         "before a window's end"
                       : ": Flink SQL's early firing (table.exec.emit.early-fire) is refused "
                         "for session windows"));
  }
  // Flink writes an updating result as its sink's changelog, in the sink's format: the twin's
  // upsert sink keeps a window and key's latest row, which is the snapshot records' table.
  if (dialect == SqlDialect::kFlink && c.changes != ChangeFormat::kSnapshot) {
    out.push_back("--changes " + std::string(ChangeFormatName(c.changes)) +
                  ": Flink SQL writes a window's revisions as its sink's changelog (update "
                  "retractions and new rows, in the sink's own format, without logtide's "
                  "revision, phase and final); the twin's upsert sink holds the table that "
                  "applying the changes gives: render it without --changes");
  }
  // Calendar windows (--tz, weeks, months): DuckDB finds their bounds with its ICU zone
  // functions (duckdb_sql.cc), where the zone's rules allow it; Flink windows a TIMESTAMP_LTZ
  // time on the local wall clock of 'table.local-time-zone' (flink_sql.cc), where the zone's
  // rules give logtide's windows.
  if (c.window.is_calendar() && dialect == SqlDialect::kFlink) {
    const std::string flag =
        "--window " + c.window.ToString() +
        (c.window.has_zone ? " --tz " + ShellWord(c.window.zone.name()) : std::string());
    if (const std::string why = FlinkCalendarRefusal(c.window); !why.empty()) {
      out.push_back(flag + ": " + why);
    } else if (c.window.has_zone && TimeKind(c.time_format) == PlanTime::Kind::kPattern) {
      out.push_back(flag + " --time-format " + ShellWord(c.time_format) +
                    ": Flink's TO_TIMESTAMP gives a TIMESTAMP, and Flink windows only a "
                    "TIMESTAMP_LTZ time in the local time zone");
    }
  }
  // Calendar windows and local times in DuckDB: where the zone's rules allow them.
  if (dialect == SqlDialect::kDuckDb && c.window.has_zone) {
    if (const std::string why = DuckDbZoneRefusal(c.window); !why.empty())
      out.push_back("--tz " + ShellWord(c.window.zone.name()) + ": " + why);
  }
  // Flink's group-window form (TUMBLE(rowtime, size) in GROUP BY), used for late firing, has no
  // offset argument; the window table functions have one.
  if (dialect == SqlDialect::kFlink && FlinkWindowOffset(c.window) != 0 &&
      ((c.emit == EmitMode::kUpdate && c.lateness > 0) || c.early_every > 0)) {
    out.push_back("--window " + c.window.ToString() + ": Flink SQL's " +
                  (c.early_every > 0 ? "early" : "late") +
                  " firing needs its group-window form (TUMBLE and HOP in GROUP BY), which "
                  "takes no offset" +
                  (c.window.calendar == WindowSpec::Calendar::kWeeks
                       ? " (weeks from Monday are Flink's grid from Thursday 1970-01-01, offset)"
                       : ""));
  }
  // Flink's times are milliseconds: a finer offset would be another grid there.
  if (dialect == SqlDialect::kFlink && c.window.offset % 1'000'000 != 0) {
    out.push_back("--window " + c.window.ToString() +
                  ": Flink SQL's event times are milliseconds, and this grid offset is not");
  }
  if (c.local_times && dialect == SqlDialect::kFlink) {
    out.push_back("--local-times: the rendering writes window_start and window_end as UTC "
                  "instants, not in the zone's local time with its offset");
  }
  if (c.window_label) {
    out.push_back("--window-label: the rendering has no window_label column (the window's "
                  "local date, ISO week, month or start time)");
  }
  // With --tz a time with no UTC offset is local: the DuckDB rendering reads auto and rfc3339
  // strings so (duckdb_sql.cc), not a pattern's.
  if (c.window.has_zone &&
      (dialect == SqlDialect::kFlink ? !c.window.is_calendar()
                                     : TimeKind(c.time_format) == PlanTime::Kind::kPattern &&
                                           !PatternHasOffset(c.time_format))) {
    out.push_back("--tz " + ShellWord(c.window.zone.name()) +
                  ": event times with no UTC offset are read as local times in the zone, "
                  "which the rendering reads as UTC" +
                  (dialect == SqlDialect::kDuckDb ? " under a --time-format pattern" : ""));
  }
  if (TimeKind(c.time_format) == PlanTime::Kind::kPattern) {
    SqlTimePattern pattern;
    if (Status s = TranslateTimePattern(c.time_format, dialect, &pattern); !s.ok())
      out.push_back("--time-format " + ShellWord(c.time_format) + ": " + s.message());
  }
  if (dialect == SqlDialect::kFlink) {
    for (const PathSegment& seg : SplitPath(c.time_field)) {
      if (!seg.is_index) continue;
      out.push_back("--time " + ShellWord(c.time_field) +
                    ": the field is an array element or inside one, and the Flink source table "
                    "declares one type for all the elements of an array (STRING), where the time "
                    "column needs its own (a TIMESTAMP or a number)");
      break;
    }
  }
  // In Flink SQL the time field is a column of its own type: no other path may read inside it,
  // or read the object or array holding it (which would make that a STRING column).
  const FieldPath time = SplitPath(c.time_field);
  auto check_path = [&](const std::string& flag, const std::string& text) {
    if (dialect != SqlDialect::kFlink || text == c.time_field) return;
    const FieldPath path = SplitPath(text);
    const size_t n = std::min(path.size(), time.size());
    for (size_t i = 0; i < n; ++i) {
      if (!SameSegment(path[i], time[i])) return;
    }
    out.push_back(flag + ": the path " + text +
                  (path.size() > time.size() ? " is inside" : " holds") + " the --time field " +
                  c.time_field +
                  ", which the Flink source table reads as a column of its own (a TIMESTAMP or a "
                  "number)");
  };
  for (size_t i = 0; i < c.by.size(); ++i) {
    if (i >= c.by_expr.size() || c.by_expr[i].empty())
      check_path("--by " + ShellWord(c.by[i]), c.by[i]);
  }
  for (const AggSpec& a : c.aggs) {
    if (!a.field.empty()) check_path("--agg " + ShellWord(a.text), a.field);
  }
  // `events`: the expression reads events' fields (not --having's records').
  auto check_expr = [&](const std::string& flag, const std::string& text, bool events = true) {
    Expr e;
    if (!Expr::Parse(text, &e).ok()) {
      out.push_back(flag + ": not an expression");  // not for a checked query
      return;
    }
    for (const std::string& p : e.paths()) {
      if (!events) break;
      if (dialect == SqlDialect::kFlink && p == c.time_field) {
        out.push_back(flag + ": it reads the --time field " + p +
                      ", which the Flink source table reads as a TIMESTAMP");
      }
      check_path(flag, p);
    }
    const PlanExpr tree = ToPlan(e, e.root());
    if (dialect == SqlDialect::kFlink && UsesSplitFromEnd(tree)) {
      out.push_back(flag +
                    ": split_part with a field counted from the end (a negative number), which "
                    "Flink's SPLIT_INDEX cannot count (it counts from 0 at the start only)");
    }
    for (const auto& [op, name] :
         {std::pair{PlanExpr::Op::kLen, "len"}, std::pair{PlanExpr::Op::kSubstr, "substr"}}) {
      if (dialect == SqlDialect::kFlink && Uses(tree, op)) {
        out.push_back(flag + ": " + name +
                      " counts code points, where Flink's CHAR_LENGTH and SUBSTRING count UTF-16 "
                      "code units, and the Flink SQL grammar the translation is checked with "
                      "does not take CHAR_LENGTH");
      }
    }
  };
  for (const std::string& w : c.where) check_expr("--where " + ShellWord(w), w);
  const RecordFields record = RecordFieldsOf(c);
  for (const std::string& h : c.having) {
    check_expr("--having " + ShellWord(h), h, false);
    Expr e;
    if (dialect != SqlDialect::kFlink || !Expr::Parse(h, &e).ok()) continue;
    for (const std::string& p : e.paths()) {
      const int f = FindRecordField(record, p);
      const bool revision =
          record.with_revision && f >= 0 && static_cast<size_t>(f) + 3 >= record.names.size();
      if (f == 0 || f == 1) {
        out.push_back("--having " + ShellWord(h) + ": it reads " +
                      record.names[static_cast<size_t>(f)] +
                      ", a TIMESTAMP(3) in Flink SQL, not logtide's RFC 3339 text");
      } else if (revision) {
        out.push_back("--having " + ShellWord(h) + ": it reads " +
                      record.names[static_cast<size_t>(f)] +
                      ", which the Flink SQL records do not have (updates replace rows)");
      }
    }
  }
  for (size_t i = 0; i < c.by_expr.size(); ++i) {
    if (!c.by_expr[i].empty())
      check_expr("--by " + ShellWord(c.by[i] + "=" + c.by_expr[i]), c.by_expr[i]);
  }
  for (const AggSpec& a : c.aggs) {
    if (!a.filter.empty()) check_expr("--agg " + ShellWord(a.text), a.filter);
  }
  return out;
}

namespace {

// Adds to *out the field names, strings and patterns of `e`, which the SQL quotes.
void QuotedTexts(const PlanExpr& e, std::vector<std::string>* out) {
  for (const PathSegment& seg : e.path) out->push_back(seg.key);
  if (e.literal.type == ValueType::kString) out->push_back(e.literal.s);
  for (const PlanLiteral& l : e.list) out->push_back(l.s);
  out->push_back(e.pattern);
  for (const PlanExpr& a : e.args) QuotedTexts(a, out);
}

}  // namespace

Status CheckSqlText(const Query& c) {
  // What each flag puts in quotes: its own text (a file name, a pattern, an output name), the
  // keys of its path, and what its expression quotes.
  auto refuse = [](const std::string& flag, const std::string& what) {
    return Status::InvalidArgument(
        flag + ": " + what +
        " holds a NUL byte (\\x00), which a string literal or a quoted identifier of DuckDB "
        "and Flink SQL cannot hold, so --explain=sql:* cannot write it");
  };
  auto path_nul = [](const std::string& path) {
    for (const PathSegment& seg : SplitPath(path)) {
      if (seg.key.find('\0') != std::string::npos) return true;
    }
    return false;
  };
  auto expr_nul = [](const std::string& text) {
    Expr e;
    if (!Expr::Parse(text, &e).ok()) return false;  // not for a checked query
    std::vector<std::string> texts;
    QuotedTexts(ToPlan(e, e.root()), &texts);
    for (const std::string& t : texts) {
      if (t.find('\0') != std::string::npos) return true;
    }
    return false;
  };
  auto has_nul = [](const std::string& s) { return s.find('\0') != std::string::npos; };
  // The flag's value as a shell word, a NUL in it (from a --config value) shown as \x00.
  auto shown = [](const std::string& s) { return ShellWord(VisibleText(s)); };
  for (const std::string& in : c.inputs) {
    if (has_nul(in)) return refuse("the input " + shown(in), "its name");
  }
  if (has_nul(c.time_format)) return refuse("--time-format " + shown(c.time_format), "the pattern");
  if (path_nul(c.time_field)) return refuse("--time " + shown(c.time_field), "a field name");
  for (size_t i = 0; i < c.by.size(); ++i) {
    const bool derived = i < c.by_expr.size() && !c.by_expr[i].empty();
    const std::string flag =
        "--by " + shown(derived ? c.by[i] + "=" + c.by_expr[i] : c.by[i]);
    if (derived && has_nul(c.by[i])) return refuse(flag, "the key's name");
    if (derived && expr_nul(c.by_expr[i])) return refuse(flag, "the expression");
    if (!derived && path_nul(c.by[i])) return refuse(flag, "a field name");
  }
  for (const AggSpec& a : c.aggs) {
    const std::string flag = "--agg " + shown(a.text.empty() ? CanonicalAggText(a) : a.text);
    if (has_nul(a.name)) return refuse(flag, "the output name");
    if (!a.field.empty() && path_nul(a.field)) return refuse(flag, "a field name");
    if (!a.filter.empty() && expr_nul(a.filter)) return refuse(flag, "the filter");
  }
  for (const std::string& w : c.where) {
    if (expr_nul(w)) return refuse("--where " + shown(w), "the expression");
  }
  for (const std::string& h : c.having) {
    if (expr_nul(h)) return refuse("--having " + shown(h), "the expression");
  }
  return Status::Ok();
}

Status BuildQueryPlan(const Query& c, QueryPlan* out) {
  QueryPlan p;
  Status s;
  p.inputs = c.inputs.empty() ? std::vector<std::string>{"-"} : c.inputs;
  p.command = CommandLine(c);
  p.delay = c.delay;
  p.lateness = c.lateness;
  p.early_every = c.early_every;
  p.changes = c.changes;
  p.idle_timeout = c.idle_timeout;
  p.window = c.window;
  p.emit = c.emit;
  p.local_times = c.local_times;

  p.time.path = SplitPath(c.time_field);
  p.time.format = c.time_format;
  p.time.kind = TimeKind(c.time_format);
  if (p.time.kind == PlanTime::Kind::kEpoch) {
    const std::string unit = c.time_format.substr(6);
    p.time.epoch_unit = unit == "s"    ? 1'000'000'000
                        : unit == "ms" ? 1'000'000
                        : unit == "us" ? 1000
                                       : 1;
  } else if (p.time.kind == PlanTime::Kind::kPattern) {
    p.time.pattern = c.time_format;
  }
  AddField(&p.fields, p.time.path, FieldUse::kTime);

  for (const std::string& w : c.where) {
    if (!(s = ExprPlan("--where", w, &p.fields, &p.where)).ok()) return s;
  }
  for (size_t i = 0; i < c.by.size(); ++i) {
    if (i < c.by_expr.size() && !c.by_expr[i].empty()) {
      p.keys.push_back(c.by[i]);
      p.key_paths.emplace_back();
      if (!(s = ExprPlan("--by", c.by_expr[i], &p.fields, &p.key_exprs)).ok()) return s;
    } else {
      p.key_paths.push_back(SplitPath(c.by[i]));
      p.keys.push_back(FieldPathName(p.key_paths.back()));
      p.key_exprs.emplace_back();
      AddField(&p.fields, p.key_paths.back(), FieldUse::kAny);
    }
  }
  for (const AggSpec& spec : c.aggs) {
    PlanAggregate a;
    a.spec = spec;
    if (spec.kind != AggKind::kCount) {
      a.path = SplitPath(spec.field);
      AddField(&p.fields, a.path, IsNumeric(spec.kind) ? FieldUse::kNumber : FieldUse::kAny);
    }
    if (!spec.filter.empty() && !(s = ExprPlan("--agg", spec.filter, &p.fields, &a.filter)).ok())
      return s;
    Annotate(&a);
    p.aggs.push_back(std::move(a));
  }
  const RecordFields fields = RecordFieldsOf(c);
  for (const std::string& h : c.having) {
    Expr e;
    if (!(s = Expr::Parse(h, &e)).ok())
      return Status::InvalidArgument(fmt::format("--having {}: {}", QuoteForMessage(h, /*backslash_quotes=*/true), s.message()));
    p.having.push_back(ToPlan(e, e.root()));
    p.having.back().text = h;
    if (!(s = ToRecordFields(fields, &p.having.back())).ok())
      return Status::InvalidArgument(fmt::format("--having {}: {}", QuoteForMessage(h, /*backslash_quotes=*/true), s.message()));
  }
  *out = std::move(p);
  return Status::Ok();
}

}  // namespace logtide
