// The query as a small logical plan: what another engine needs to run the same job (the source
// fields and their types, the event-time expression, the watermark, the windows, the keys, the
// aggregates with what each engine can and cannot reproduce). Built once from the checked
// query (query/query.h); the SQL renderers (duckdb_sql.h, flink_sql.h) only print it.
#pragma once

#include <string>
#include <vector>

#include "agg/agg_spec.h"
#include "expr/expr.h"
#include "json/field_path.h"
#include "json/value.h"
#include "query/query.h"
#include "time/timestamp.h"
#include "window/emit_mode.h"
#include "window/window_spec.h"

namespace logtide {

// How a source field is used, which decides the type another engine reads it as.
enum class FieldUse {
  kTime,    // the event time: its type follows --time-format
  kNumber,  // only by numeric aggregates (sum, min, max, avg, quantiles): other types are null
  kAny,     // as a key or by an aggregate that takes any JSON value
  kRecord,  // only as the object holding other used fields
  kArray,   // only as the array holding used elements
};

// One field of the source record, a tree: a record's children are the fields used below it, an
// array's the elements used (by index, negative from the end). A field used itself, or as both
// an object and an array (in different events), is kAny with children: renderers then read the
// children out of its JSON text.
struct SourceField {
  PathSegment segment;  // the key, or the index of an element
  FieldUse use = FieldUse::kRecord;
  std::vector<SourceField> children;
};

// Returns whether two path segments address the same key or the same index.
bool SameSegment(const PathSegment& a, const PathSegment& b);

// How the event time is read (--time-format).
struct PlanTime {
  enum class Kind { kRfc3339, kEpoch, kAuto, kPattern };
  Kind kind = Kind::kAuto;
  FieldPath path;        // the --time field
  Nanos epoch_unit = 0;  // kEpoch: nanoseconds per unit (1e9 for epoch_s)
  std::string pattern;   // kPattern: the strptime pattern as given
  std::string format;    // --time-format as given
};

// A literal of an expression: a JSON scalar.
struct PlanLiteral {
  ValueType type = ValueType::kNull;  // kNull, kFalse, kTrue, kNumber or kString
  bool is_int = false;                // kNumber: integral and within int64 (in `i`)
  int64_t i = 0;
  double d = 0;   // kNumber: the value
  std::string s;  // kString: the text
};

// An expression (expr/expr.h) as a tree the renderers print, each in its dialect.
struct PlanExpr {
  using Op = ExprOp;  // expr/expr.h
  // What the node gives, known before reading any event: a field can hold any JSON value (or
  // null); the rest give one type or null.
  enum class Type { kAny, kNull, kBool, kNumber, kString };

  Op op = Op::kLiteral;
  Type type = Type::kNull;
  std::vector<PlanExpr> args;
  FieldPath path;                 // kField: the field
  PlanLiteral literal;            // kLiteral
  std::vector<PlanLiteral> list;  // kIn
  std::string pattern;            // kMatches: the RE2 pattern (args holds the string only)
  std::string text;               // the whole expression's canonical text, on roots only
};

// One aggregate and how faithfully each engine computes it. A note is empty when the engine's
// function gives logtide's value exactly; otherwise it says how it differs.
struct PlanAggregate {
  AggSpec spec;
  FieldPath path;  // the field; empty for count
  std::string duckdb_note;
  std::string flink_note;
  std::string clickhouse_note;
  bool flink_supported = true;   // false: Flink has no equivalent; the column is NULL
  std::vector<PlanExpr> filter;  // a filter aggregate's condition (one), or none
};

struct QueryPlan {
  std::vector<std::string> inputs;  // "-" is standard input
  std::vector<SourceField> fields;  // top-level source fields, in order of first use
  PlanTime time;
  Nanos delay = 0;
  Nanos lateness = 0;
  // --early-every: provisional records every this much wall-clock time (0: none).
  Nanos early_every = 0;
  // --changes: how logtide writes revisions (the twins render the records, not the changes).
  ChangeFormat changes = ChangeFormat::kSnapshot;
  Nanos idle_timeout = 0;
  WindowSpec window;
  std::vector<std::string> keys;     // output names: a path's FieldPathName, or a derived key's
  std::vector<FieldPath> key_paths;  // a plain key's path; empty if derived
  std::vector<PlanExpr> key_exprs;   // a derived key's expression (kNull literal if plain)
  std::vector<PlanExpr> where;       // --where: an event counts when all are true
  // --having: a record is written when all are true. Their fields are the records' (the path
  // one key, the field's output name: query.h, FindRecordField), not the events'.
  std::vector<PlanExpr> having;
  std::vector<PlanAggregate> aggs;
  EmitMode emit = EmitMode::kFinal;
  // --local-times: window bounds written in window.zone's local time with its UTC offset.
  bool local_times = false;
  std::string command;  // the logtide command line this plan stands for, for comments
};

enum class SqlDialect { kDuckDb, kFlink, kClickHouse };

// Returns the parts of `query` that `dialect` cannot run as logtide does, each as its flag and
// the reason ("--where 'len(.path) > 3': len: ..."): in Flink SQL, len and substr (code points
// there are UTF-16 code units, and the grammar checked does not take CHAR_LENGTH), expressions
// reading the --time field (a TIMESTAMP column there), split_part counting from the end (SPLIT_INDEX
// counts from the start only), a --time field that is an array
// element or inside one (an array's elements there have one declared type), and paths inside
// the --time field or holding it; in both, a --time-format pattern with a specifier the
// dialect cannot read (time_pattern.h: %s); in both, --early (provisional records as the
// watermark passes start + k*DUR, which neither expresses); --early-every (provisional records
// by the wall clock) in DuckDB, and in Flink SQL for session windows and with a grid offset (its
// early firing needs the group-window form); in Flink SQL, calendar windows (TUMBLE has one fixed
// length), --tz with other windows and --local-times; in DuckDB, with --tz, a zone whose changes
// its rendering cannot follow exactly or that has no IANA name (query_plan.cc:
// DuckDbZoneRefusal), and a --time-format pattern's local times. Empty when the SQL is the whole
// query.
std::vector<std::string> Untranslated(const Query& query, SqlDialect dialect);

// Returns InvalidArgument, naming the flag and the byte, when user text that the SQL of either
// dialect would hold as a string literal or a quoted identifier holds a NUL byte, which
// neither DuckDB nor Flink SQL can hold there: an input file name, --time-format, a field
// name (of --time, --by, --agg or one an expression reads), an output name (--by NAME=,
// --agg NAME=), or a string or pattern in an expression. Ok otherwise. Every other byte is
// quoted for the dialect (a quote doubled), or, in a comment, written as a visible escape
// (sql_text.h: VisibleText).
Status CheckSqlText(const Query& query);

// Makes the plan of `query` in *out. REQUIRES: query was completed and checked (aggs filled
// in, paths normalized, expressions in canonical text: cli/ and engine/validate_config.h's
// ValidateConfig) and Untranslated(query, d) is empty for the dialect it is rendered in.
// Errors: InvalidArgument for an expression that does not parse (which that check rules out).
Status BuildQueryPlan(const Query& query, QueryPlan* out);

// Returns the segments of a field path in canonical text (json/field_path.h: `req.method`,
// `["log.level"]`, `tags[-1].name`); empty when it does not parse (never after
// ValidateConfig). The one place the plan reads a path's text.
FieldPath SplitPath(const std::string& path);

// Makes the plan tree of the canonical expression `text` in *out, as BuildQueryPlan makes it.
// Errors: InvalidArgument when it does not parse.
Status ExprTree(const std::string& text, PlanExpr* out);

// Returns `s` quoted for a POSIX shell (in single quotes) when it holds anything but letters,
// digits and _./:=,+-.
std::string ShellWord(const std::string& s);

// Returns whether `plan` has an expression: --where, a filter aggregate, a derived key or
// --having.
bool HasExpressions(const QueryPlan& plan);

// Returns the window kind, size, slide and gap as the logtide flag spells them, and the flags
// that change results, as one logtide command line.
std::string CommandLine(const Query& query);

}  // namespace logtide
