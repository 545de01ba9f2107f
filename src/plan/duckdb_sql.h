// --explain=sql:duckdb: the query as one DuckDB batch query over the same input files.
#pragma once

#include <string>

#include "plan/query_plan.h"

namespace logtide {

// Returns a DuckDB SQL script (a few macros, then one SELECT) that reads the plan's inputs with
// read_ndjson and returns the records logtide writes when no event is late: the same columns,
// names and order (window_start and window_end as logtide writes them, the keys, the
// aggregates, and revision 0 in update mode), sorted as logtide writes them. Comments say where
// the values can differ.
std::string DuckDbSql(const QueryPlan& plan);

}  // namespace logtide
