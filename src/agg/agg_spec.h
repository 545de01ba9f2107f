// Aggregate specifications as written on the command line: [NAME=]FN, [NAME=]FN(FIELD) or, for
// quantile and top_k, [NAME=]FN(FIELD, PARAM).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace logtide {

enum class AggKind {
  kCount,
  kCountField,
  kSum,
  kMin,
  kMax,
  kAvg,
  kCountDistinct,
  kFirst,
  kLast,
  kQuantile,       // quantile(f, Q) and its shorthands median(f), p50(f) .. p999(f)
  kApproxDistinct, // approx_count_distinct(f)
  kTopK,           // top_k(f, K)
};

struct AggSpec {
  AggKind kind = AggKind::kCount;
  std::string field;  // empty for plain count
  std::string name;   // output field name
  std::string text;   // the spec as written, for messages
  std::string filter;  // SQL's FILTER (WHERE ...): the expression's canonical text, or empty
  double q = 0;       // quantile: 0 <= q <= 1
  uint32_t k = 0;     // top_k: 1 <= k <= kMaxTopK
};

inline constexpr uint32_t kMaxTopK = 1000;

// Parses one aggregate, with an optional filter: "SPEC filter EXPR" aggregates only the events
// for which EXPR (expr/expr.h) is true. The default name is "count" for count, pDIGITS_FIELD for quantiles
// ("p99(latency_ms)" and "quantile(latency_ms, 0.99)" -> "p99_latency_ms", Q's digits after
// "0.", at least two: 0.05 -> p05, 0.999 -> p999; p0 and p100 for 0 and 1), and FN_FIELD
// otherwise ("sum(bytes)" -> "sum_bytes"); count(*) and count() are count. A filtered
// aggregate's default name ends in "_filtered" ("count_filtered"). The field is a path as
// NormalizeFieldPath takes it (json/field_path.h). Fails on an unknown function, a missing or
// extra field, parentheses in a field or an empty name, with a message that lists the
// functions.
Status ParseAggSpec(std::string_view text, AggSpec* out);
// Parses one --agg value: one aggregate or several separated by commas outside parentheses
// ("sum(bytes),avg(latency_ms)"), appended to *out in order.
Status ParseAggList(std::string_view text, std::vector<AggSpec>* out);

// Parses the aggregates of a query's identity (query/query.h QueryText): their CanonicalAggText
// separated by spaces. Each piece is the shortest run of space-separated words that parses and
// reads back as the same canonical text, such that the rest parses too (a filter holds spaces).
// Fails on text that is no such list.
Status ParseCanonicalAggList(std::string_view text, std::vector<AggSpec>* out);

// Returns the function's name as written ("count_distinct"; "quantile" for the shorthands).
std::string_view AggKindName(AggKind kind);
// Returns the spec in canonical form, NAME=FN(FIELD[, PARAM]), for the query's identity.
std::string CanonicalAggText(const AggSpec& a);

}  // namespace logtide
