// --explain=sql:flink: the query as a Flink SQL job.
#pragma once

#include <string>

#include "plan/query_plan.h"

namespace logtide {

// Returns a Flink SQL script: the session settings (UTC, idleness, allowed lateness and late
// firing for --emit update), the source table (JSON format, the event-time column computed from
// the --time field, its WATERMARK from --delay, the connector as a placeholder for the same
// files with Kafka in a comment), the sink table, and the INSERT with the windowed aggregation
// (TUMBLE and HOP table functions; GROUP BY SESSION(...) for sessions and for allowed lateness).
// Comments say where Flink's result differs from logtide's.
std::string FlinkSql(const QueryPlan& plan);

// The size and the offset of Flink's window grid for `w` (the size and the last argument of
// TUMBLE and HOP): windows start at offset + k * size, on the local wall clock of calendar
// windows (a local day, ISO weeks from Monday, a size that divides a day), in [0, size).
// REQUIRES: `w` is no window of months.
Nanos FlinkWindowSize(const WindowSpec& w);
Nanos FlinkWindowOffset(const WindowSpec& w);

}  // namespace logtide
