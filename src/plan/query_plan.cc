#include "plan/query_plan.h"

#include <fmt/format.h>

#include "agg/sketches.h"
#include "time/duration.h"

namespace logtide {
namespace {

// Returns the use of a field used both as `a` and as `b`: the time keeps its own reading, any
// value includes the numbers, and a record that is also used itself is that use.
FieldUse Merge(FieldUse a, FieldUse b) {
  if (a == FieldUse::kRecord) return b;
  if (b == FieldUse::kRecord) return a;
  if (a == FieldUse::kTime || b == FieldUse::kTime) return FieldUse::kTime;
  if (a == FieldUse::kAny || b == FieldUse::kAny) return FieldUse::kAny;
  return FieldUse::kNumber;
}

// Adds `path` with `use` to the tree, creating the records on its way.
void AddField(std::vector<SourceField>* fields, const std::vector<std::string>& path,
              FieldUse use) {
  std::vector<SourceField>* level = fields;
  for (size_t i = 0; i < path.size(); ++i) {
    SourceField* found = nullptr;
    for (SourceField& f : *level) {
      if (f.name == path[i]) found = &f;
    }
    if (found == nullptr) {
      level->push_back(SourceField{path[i], FieldUse::kRecord, {}});
      found = &level->back();
    }
    if (i + 1 == path.size()) found->use = Merge(found->use, use);
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
      a->duckdb_note = a->flink_note =
          "a sum of doubles; logtide sums integers exactly, as an integer (the same value below "
          "2^53)";
      break;
    case AggKind::kCountDistinct:
      a->duckdb_note = a->flink_note =
          "values compared as JSON text: 1 and 1.0, or one object with its keys in two orders, "
          "are two values (logtide compares JSON values: one)";
      break;
    case AggKind::kFirst:
    case AggKind::kLast: {
      const bool first = a->spec.kind == AggKind::kFirst;
      a->duckdb_note = fmt::format(
          "among events with the same time, the {} in the input; with several files logtide "
          "reads them merged by time, so ties between files may be broken otherwise",
          first ? "first" : "last");
      a->flink_note = fmt::format(
          "{} takes the {} value in arrival order; logtide takes the value at the {} event time",
          first ? "FIRST_VALUE" : "LAST_VALUE", first ? "first" : "last",
          first ? "smallest" : "largest");
      break;
    }
    case AggKind::kQuantile:
      a->duckdb_note =
          "exact nearest rank; logtide's is the same up to 64 values, then within 1% of it";
      a->flink_note =
          "Flink SQL has no percentile aggregate: register one (a user-defined aggregate "
          "function over a DDSketch or t-digest) and call it here";
      a->flink_supported = false;
      break;
    case AggKind::kApproxDistinct:
      a->duckdb_note =
          "exact; logtide's is the same up to 1024 distinct values, then an estimate within "
          "about 2.5%. approx_count_distinct(...) is DuckDB's cheaper estimate, another one "
          "(not exact even for a few values)";
      a->flink_note =
          "COUNT(DISTINCT) is exact and keeps every distinct value in state; logtide estimates "
          "past 1024 distinct values";
      break;
    case AggKind::kTopK:
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

// Returns `s` quoted for a POSIX shell when it holds anything but plain characters.
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

}  // namespace

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    out.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return out;
    start = dot + 1;
  }
}

std::string CommandLine(const EngineConfig& c) {
  std::string s = "logtide --window " + c.window.ToString();
  if (c.time_field != "ts") s += " --time " + ShellWord(c.time_field);
  if (c.time_format != "auto") s += " --time-format " + ShellWord(c.time_format);
  for (const std::string& k : c.by) s += " --by " + ShellWord(k);
  for (const AggSpec& a : c.aggs)
    s += " --agg " + ShellWord(a.text.empty() ? CanonicalAggText(a) : a.text);
  if (c.delay > 0) s += " --delay " + FormatDuration(c.delay);
  if (c.lateness > 0) s += " --lateness " + FormatDuration(c.lateness);
  if (c.idle_timeout > 0) s += " --idle-timeout " + FormatDuration(c.idle_timeout);
  if (c.emit == EmitMode::kUpdate) s += " --emit update";
  for (const std::string& in : c.inputs) s += " " + ShellWord(in);
  return s;
}

std::vector<std::string> Untranslated(const EngineConfig& c) {
  std::vector<std::string> out;
  for (const std::string& w : c.where) out.push_back("--where " + ShellWord(w));
  for (size_t i = 0; i < c.by_expr.size(); ++i) {
    if (!c.by_expr[i].empty()) out.push_back("--by " + ShellWord(c.by[i] + "=" + c.by_expr[i]));
  }
  for (const AggSpec& a : c.aggs) {
    if (!a.filter.empty()) out.push_back("--agg " + ShellWord(a.text));
  }
  return out;
}

QueryPlan BuildQueryPlan(const EngineConfig& c) {
  QueryPlan p;
  p.inputs = c.inputs.empty() ? std::vector<std::string>{"-"} : c.inputs;
  p.command = CommandLine(c);
  p.delay = c.delay;
  p.lateness = c.lateness;
  p.idle_timeout = c.idle_timeout;
  p.window = c.window;
  p.emit = c.emit;

  p.time.path = SplitPath(c.time_field);
  p.time.format = c.time_format;
  if (c.time_format == "auto") {
    p.time.kind = PlanTime::Kind::kAuto;
  } else if (c.time_format == "rfc3339") {
    p.time.kind = PlanTime::Kind::kRfc3339;
  } else if (c.time_format.rfind("epoch_", 0) == 0) {
    p.time.kind = PlanTime::Kind::kEpoch;
    const std::string unit = c.time_format.substr(6);
    p.time.epoch_unit = unit == "s"    ? 1'000'000'000
                        : unit == "ms" ? 1'000'000
                        : unit == "us" ? 1000
                                       : 1;
  } else {
    p.time.kind = PlanTime::Kind::kPattern;
    p.time.pattern = c.time_format;
  }
  AddField(&p.fields, p.time.path, FieldUse::kTime);

  for (const std::string& k : c.by) {
    p.keys.push_back(k);
    p.key_paths.push_back(SplitPath(k));
    AddField(&p.fields, p.key_paths.back(), FieldUse::kAny);
  }
  for (const AggSpec& spec : c.aggs) {
    PlanAggregate a;
    a.spec = spec;
    if (spec.kind != AggKind::kCount) {
      a.path = SplitPath(spec.field);
      AddField(&p.fields, a.path, IsNumeric(spec.kind) ? FieldUse::kNumber : FieldUse::kAny);
    }
    Annotate(&a);
    p.aggs.push_back(std::move(a));
  }
  return p;
}

}  // namespace logtide
