// The plan of a configuration the test made, which must build.
#pragma once

#include <catch2/catch.hpp>

#include "plan/query_plan.h"

namespace logtide {

inline QueryPlan PlanOf(const Query& c) {
  QueryPlan p;
  REQUIRE(BuildQueryPlan(c, &p).ok());
  return p;
}

}  // namespace logtide
