// Aggregate specifications as written on the command line: [NAME=]FN or [NAME=]FN(FIELD).
#pragma once

#include <string>
#include <string_view>

#include "util/status.h"

namespace logtide {

enum class AggKind { kCount, kCountField, kSum, kMin, kMax, kAvg, kCountDistinct, kFirst, kLast };

struct AggSpec {
  AggKind kind = AggKind::kCount;
  std::string field;  // empty for plain count
  std::string name;   // output field name
  std::string text;   // the spec as written, for messages
};

// Parses one --agg value. The default name is "count" for count and FN_FIELD otherwise
// ("sum(bytes)" -> "sum_bytes"). Fails on an unknown function, a missing or extra field, or
// an empty name, with a message that lists the functions.
Status ParseAggSpec(std::string_view text, AggSpec* out);

// Returns the function's name as written ("count_distinct").
std::string_view AggKindName(AggKind kind);

}  // namespace logtide
