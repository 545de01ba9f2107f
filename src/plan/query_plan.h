// The query as a small logical plan: what another engine needs to run the same job (the source
// fields and their types, the event-time expression, the watermark, the windows, the keys, the
// aggregates with what each engine can and cannot reproduce). Built once from the checked
// configuration; the SQL renderers (duckdb_sql.h, flink_sql.h) only print it.
#pragma once

#include <string>
#include <vector>

#include "agg/agg_spec.h"
#include "engine/config.h"
#include "time/timestamp.h"
#include "window/window_operator.h"
#include "window/window_spec.h"

namespace logtide {

// How a source field is used, which decides the type another engine reads it as.
enum class FieldUse {
  kTime,    // the event time: its type follows --time-format
  kNumber,  // only by numeric aggregates (sum, min, max, avg, quantiles): other types are null
  kAny,     // as a key or by an aggregate that takes any JSON value
  kRecord,  // only as the object holding other used fields
};

// One field of the source record, a tree: a record's children are the fields used below it.
// A field used itself and as the object holding used fields is kAny with children: renderers
// then read the children out of its JSON text.
struct SourceField {
  std::string name;  // one path segment
  FieldUse use = FieldUse::kRecord;
  std::vector<SourceField> children;
};

// How the event time is read (--time-format).
struct PlanTime {
  enum class Kind { kRfc3339, kEpoch, kAuto, kPattern };
  Kind kind = Kind::kAuto;
  std::vector<std::string> path;  // the --time field's segments
  Nanos epoch_unit = 0;           // kEpoch: nanoseconds per unit (1e9 for epoch_s)
  std::string pattern;            // kPattern: the strptime pattern as given
  std::string format;             // --time-format as given
};

// One aggregate and how faithfully each engine computes it. A note is empty when the engine's
// function gives logtide's value exactly; otherwise it says how it differs.
struct PlanAggregate {
  AggSpec spec;
  std::vector<std::string> path;  // the field's segments; empty for count
  std::string duckdb_note;
  std::string flink_note;
  bool flink_supported = true;  // false: Flink has no equivalent; the column is NULL
};

struct QueryPlan {
  std::vector<std::string> inputs;  // "-" is standard input
  std::vector<SourceField> fields;  // top-level source fields, in order of first use
  PlanTime time;
  Nanos delay = 0;
  Nanos lateness = 0;
  Nanos idle_timeout = 0;
  WindowSpec window;
  std::vector<std::string> keys;                    // --by paths as written: output names
  std::vector<std::vector<std::string>> key_paths;  // their segments
  std::vector<PlanAggregate> aggs;
  EmitMode emit = EmitMode::kFinal;
  std::string command;  // the logtide command line this plan stands for, for comments
};

// Returns the parts of `config` the plan does not translate to SQL yet, as flags ("--where
// 'status >= 500'"): --where, filter aggregates and derived keys (expr/expr.h). Empty when the
// plan is the whole query. A SQL rendering that left them out would give other results.
std::vector<std::string> Untranslated(const EngineConfig& config);

// Returns the plan of `config`. REQUIRES: config was checked by Engine::Create (aggs filled in,
// paths normalized) and Untranslated(config) is empty.
QueryPlan BuildQueryPlan(const EngineConfig& config);

// Returns the segments of a normalized field path ("req.method" -> {"req", "method"}).
std::vector<std::string> SplitPath(const std::string& path);

// Returns the window kind, size, slide and gap as the logtide flag spells them, and the flags
// that change results, as one logtide command line.
std::string CommandLine(const EngineConfig& config);

}  // namespace logtide
