// A --time-format strptime pattern (time/time_format.h) in each SQL dialect's spelling: DuckDB's
// strptime format and the Java DateTimeFormatter pattern of Flink's TO_TIMESTAMP. One table of
// conversion specifiers (time_pattern.cc) gives each dialect's spelling, or its refusal.
#pragma once

#include <string>
#include <string_view>

#include "plan/query_plan.h"
#include "util/status.h"

namespace logtide {

struct SqlTimePattern {
  std::string text;  // the pattern in the dialect's spelling
  // The specifiers of the pattern whose values the dialect reads differently from logtide
  // (Java: %y, %f, %z, %Z, %D; each as "%f", once, in the order they first appear, joined by
  // ", " and a final " and "): check them against a sample line. Stricter readings of the
  // same values (Java's two digits for %m %d %H %I %M %S, names in one form and case; DuckDB's
  // %f to six digits) are not named: man/logtide.1 (RUNNING THE SAME JOB ELSEWHERE) says them.
  std::string inexact;
};

// Translates the strptime `pattern` into `dialect`'s spelling in *out. Text outside the
// specifiers is kept; in the Java pattern, letters and the characters DateTimeFormatter
// reserves ([ ] { } #) are quoted, a quote doubled. Errors: InvalidArgument for a specifier
// logtide does not know or a lone '%' at the end (which TimeFormat::Create rules out), and for
// one the dialect cannot read, naming it and why ("%s: ...").
Status TranslateTimePattern(std::string_view pattern, SqlDialect dialect, SqlTimePattern* out);

}  // namespace logtide
