// --explain=sql:clickhouse: the query as a script for a sharded ClickHouse cluster.
#pragma once

#include <string>
#include <vector>

#include "plan/query_plan.h"
#include "query/query.h"

namespace logtide {

// Returns the parts of `query` the ClickHouse rendering cannot run as logtide does, each as its
// flag and the reason; empty when the script is the whole query. The script reads each line's
// text with ClickHouse's visitParam functions (the only JSON functions of the 18.16 version
// Debian ships), which find a field by its name and cannot address an array's element, so:
// array elements in a path; a field name holding a control character (a line writes those
// escaped, and the name is matched as written); an output name starting logtide_ (the script's
// own columns); months and --tz (days and weeks in UTC are fixed windows); --time-format
// patterns; --early and --early-every (a batch query); in expressions, a pattern, rewrite or separator that is not a
// literal (ClickHouse takes them as constants) and regexp_extract of a group past the first
// (18.16's extract() gives the first) and substr (18.16's substringUTF8 takes constant
// offsets only); and, not yet translated, --having.
std::vector<std::string> ClickHouseUntranslated(const Query& query);

// Returns a ClickHouse SQL script in four marked parts: (1) the tables to create on every
// server of a cluster named `logtide` (each shard's events table, one line's text per row; a
// Distributed table over them sharded by a stable hash of the --by keys; each shard's
// AggregatingMergeTree of partial states per window and key, filled by a materialized view as
// lines are inserted (for session windows, each key's events, the sessions found when read);
// and a Distributed table over those), (2) how to load the inputs through
// the Distributed table, (3) the records logtide writes when no event is late, as one query
// over the distributed events, and (4) the same records from the materialized view's partial
// states, read with the -Merge combinators. Comments say where the values can differ.
// REQUIRES: ClickHouseUntranslated(query) was empty for the plan's query.
std::string ClickHouseSql(const QueryPlan& plan);

}  // namespace logtide
