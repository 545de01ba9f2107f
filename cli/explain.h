// --explain: the query in words or as SQL, from the checked configuration, without reading any input.
#pragma once

#include <string>

#include "engine/config.h"
#include "plan/query_plan.h"

namespace logtide {

// Returns a few paragraphs saying what will be read, the windows, the watermark rule, when
// results are written and what happens to late events. User text in them (file names, fields, patterns,
// expressions) is written as VisibleText (plan/sql_text.h) makes it: a control character
// cannot move the cursor or hide what follows it.
// Errors: those of BuildQueryPlan.
Status Explain(const EngineConfig& config, std::string* out);

// Returns the query as SQL of `dialect`, from its logical plan (plan/query_plan.h): a DuckDB
// batch query over the same files, or a Flink SQL job. REQUIRES: CheckSqlText(config).ok().
// Errors: those of BuildQueryPlan.
Status ExplainSql(const EngineConfig& config, SqlDialect dialect, std::string* out);

}  // namespace logtide
