// Aggregate specifications as written on the command line: [NAME=]FN or [NAME=]FN(FIELD).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace logtide {

enum class AggKind { kCount, kCountField, kSum, kMin, kMax, kAvg, kCountDistinct, kFirst, kLast };

struct AggSpec {
  AggKind kind = AggKind::kCount;
  std::string field;  // empty for plain count
  std::string name;   // output field name
  std::string text;   // the spec as written, for messages
};

// Parses one aggregate. The default name is "count" for count and FN_FIELD otherwise
// ("sum(bytes)" -> "sum_bytes"); count(*) and count() are count. The field is a path as
// NormalizeFieldPath takes it (json/extractor.h). Fails on an unknown function, a missing or
// extra field, parentheses in a field or an empty name, with a message that lists the
// functions.
Status ParseAggSpec(std::string_view text, AggSpec* out);
// Parses one --agg value: one aggregate or several separated by commas outside parentheses
// ("sum(bytes),avg(latency_ms)"), appended to *out in order.
Status ParseAggList(std::string_view text, std::vector<AggSpec>* out);

// Returns the function's name as written ("count_distinct").
std::string_view AggKindName(AggKind kind);

}  // namespace logtide
