#include "explain.h"

#include <fmt/format.h>

#include <algorithm>

#include "agg/sketches.h"
#include "expr/expr.h"
#include "json/field_path.h"
#include "plan/clickhouse_sql.h"
#include "plan/duckdb_sql.h"
#include "plan/flink_sql.h"
#include "plan/query_plan.h"
#include "plan/sql_text.h"
#include "time/duration.h"
#include "window/window_label.h"

namespace logtide {
namespace {

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

// "6h after " for a grid moved by an offset of 6h; "at " for none.
std::string OffsetText(const WindowSpec& w) {
  return w.offset == 0 ? std::string("at ") : FormatDuration(w.offset) + " after ";
}
// A field path as the user may write it: "req.method" for a plain one, ."log.level" and
// .tags[0] for the others.
std::string QuotedPath(const std::string& path) {
  return path == FieldPathName(path) ? Quoted(path) : PathAsExpr(path);
}

std::string AggText(const AggSpec& a) {
  const std::string f = QuotedPath(a.field);
  switch (a.kind) {
    case AggKind::kCount:
      return "the number of events";
    case AggKind::kCountField:
      return "the number of events where " + f + " is not null";
    case AggKind::kSum:
      return "the sum of the numbers in " + f;
    case AggKind::kMin:
      return "the smallest number in " + f;
    case AggKind::kMax:
      return "the largest number in " + f;
    case AggKind::kAvg:
      return "the mean of the numbers in " + f;
    case AggKind::kCountDistinct:
      return "the number of distinct values of " + f;
    case AggKind::kFirst:
      return "the value of " + f + " at the earliest event time";
    case AggKind::kLast:
      return "the value of " + f + " at the latest event time";
    case AggKind::kQuantile:
      return fmt::format(
          "the {} quantile of the numbers in {} (the value of rank ceil({}*n) of n in ascending "
          "order, as SQL's percentile_disc): exact for up to 64 values, then estimated within 1% of its value by a "
          "log-bucketed sketch (DDSketch: at most 2 x 2048 buckets, shared by every quantile of "
          "{})",
          a.q, f, a.q, f);
    case AggKind::kApproxDistinct:
      return "the number of distinct values of " + f +
             ", exact up to 1024 distinct values, then estimated by HyperLogLog (2^14 registers, "
             "16 KiB; standard error 0.8%)";
    case AggKind::kTopK:
      return fmt::format(
          "the {} most frequent values of {} with their counts, as [{{\"value\",\"count\","
          "\"error\"}}], by count then value (Space-Saving over {} counters: exact while the "
          "window has at most that many distinct values; otherwise a count may exceed the true "
          "one by at most its error)",
          a.k, f, TopKSketch::CapacityFor(a.k));
  }
  return "";
}

std::string TimeFormatText(const std::string& f) {
  if (f == "auto")
    return "RFC 3339 strings, or epoch numbers whose unit (s, ms, us, ns) is guessed from their "
           "size";
  if (f == "rfc3339") return "RFC 3339 strings such as 2024-05-01T10:00:00Z";
  if (f == "epoch_s") return "numbers of seconds since 1970";
  if (f == "epoch_ms") return "numbers of milliseconds since 1970";
  if (f == "epoch_us") return "numbers of microseconds since 1970";
  if (f == "epoch_ns") return "numbers of nanoseconds since 1970";
  return "strings in the pattern \"" + f + "\"";
}

// What the lines of an input of `format` are.
const char* LinesText(InputFormat format) {
  switch (format) {
    case InputFormat::kNdjson:
      break;
    case InputFormat::kLogfmt:
      return "logfmt lines (key=value pairs), each read as the JSON object it stands for";
    case InputFormat::kCsv:
      return "CSV rows under a header line that names their fields, each read as the JSON "
             "object it stands for";
    case InputFormat::kTsv:
      return "TSV rows under a header line that names their fields, each read as the JSON "
             "object it stands for";
  }
  return "one JSON object per line";
}

}  // namespace

Status Explain(const EngineConfig& c, std::string* result) {
  // The query's parts come from the plan the SQL renderings print (plan/query_plan.h), so the
  // words and the SQL cannot tell two stories; how the run reads, waits and writes comes from
  // the configuration.
  QueryPlan p;
  if (Status st = BuildQueryPlan(c, &p); !st.ok()) return st;
  std::string s;
  auto out = std::back_inserter(s);
  const std::vector<std::string>& inputs = p.inputs;

  InputFormat format;
  const bool one_format = c.OneFormat(&format);
  if (inputs.size() == 1) {
    fmt::format_to(out, "Input: {}, {}.\n", inputs[0] == "-" ? "standard input" : inputs[0],
                   LinesText(c.FormatOf(inputs[0])));
  } else {
    fmt::format_to(out,
                   "Input: {} files, {}read side by side: the next line always comes from the "
                   "file whose latest event time is the earliest.\n",
                   inputs.size(),
                   one_format ? std::string(LinesText(format)) + ", " : "");
    if (!one_format) {
      s += "Lines:";
      for (size_t i = 0; i < inputs.size(); ++i) {
        fmt::format_to(out, " {}: {}{}", inputs[i] == "-" ? "standard input" : inputs[i],
                       LinesText(c.FormatOf(inputs[i])), i + 1 < inputs.size() ? ";" : ".\n");
      }
    }
  }
  fmt::format_to(out, "Event time: the field {}, read as {}.\n",
                 QuotedPath(FieldPathText(p.time.path)), TimeFormatText(p.time.format));

  const WindowSpec& w = p.window;
  const std::string size = FormatDuration(w.size), slide = FormatDuration(w.slide),
                    gap = FormatDuration(w.gap);
  switch (w.kind) {
    case WindowSpec::Kind::kTumbling:
      if (w.is_calendar()) {
        fmt::format_to(out, "Windows: tumbling, {} in the local calendar of {}{}; ",
                       CalendarWindowText(w), w.zone.name(),
                       w.offset == 0 ? std::string()
                                     : fmt::format(", every bound moved by {} on the local clock",
                                                   FormatSignedDuration(w.offset)));
        fmt::format_to(out,
                       "each bound is the first instant the local clock shows it (a skipped "
                       "time: the instant of the change; a repeated one: the earlier); each event "
                       "is in exactly one.\n");
        break;
      }
      fmt::format_to(out,
                     "Windows: tumbling, {} long, starting {}every multiple of {} since "
                     "1970-01-01T00:00:00Z; "
                     "each event is in exactly one.\n",
                     size, OffsetText(w), size);
      break;
    case WindowSpec::Kind::kSliding:
      fmt::format_to(
          out, "Windows: sliding, {} long, a new one every {}{}; each event is in {} windows{}.\n",
          size, slide,
          w.offset == 0 ? std::string()
                        : fmt::format(" (starting {}every multiple of {} since 1970-01-01T00:00:00Z)",
                                      OffsetText(w), slide),
          (w.size + w.slide - 1) / w.slide,
          w.size % w.slide == 0 ? "" : " (or one fewer)");
      break;
    case WindowSpec::Kind::kSession:
      fmt::format_to(out,
                     "Windows: sessions per key; events at most {} apart share a session, which "
                     "ends {} after its "
                     "last event.\n",
                     gap, gap);
      break;
  }
  if (w.has_zone && w.is_session())
    fmt::format_to(out, "Time zone {}: sessions are unchanged by it (a gap is elapsed time).\n",
                   w.zone.name());
  if (!p.where.empty()) {
    std::string all;
    for (size_t i = 0; i < p.where.size(); ++i) all += (i ? " and " : "") + p.where[i].text;
    fmt::format_to(out,
                   "Filter: only events for which {} is true are used; the others are skipped "
                   "and counted (a null, from an absent field, is not true).\n",
                   all);
  }
  if (p.keys.empty()) {
    s += "Groups: one result per window, over all its events.\n";
  } else {
    std::string keys;
    for (size_t i = 0; i < p.keys.size(); ++i) {
      const bool derived = p.key_paths[i].empty();
      keys += (i ? ", " : "") +
              (derived ? Quoted(p.keys[i]) : QuotedPath(FieldPathText(p.key_paths[i])));
      if (derived) keys += " (the value of " + p.key_exprs[i].text + ")";
    }
    fmt::format_to(
        out, "Groups: one result per window and distinct value of {} (an absent field is null).\n",
        keys);
  }
  s += "Each result holds:\n";
  for (const PlanAggregate& a : p.aggs) {
    fmt::format_to(out, "  {}: {}{}\n", a.spec.name, AggText(a.spec),
                   a.filter.empty() ? ""
                                    : ", over the events for which " + a.filter[0].text +
                                          " is true");
  }

  if (!p.having.empty()) {
    std::string all;
    for (size_t i = 0; i < p.having.size(); ++i) all += (i ? " and " : "") + p.having[i].text;
    fmt::format_to(out, "Written: only the results for which {} is true{}.\n", all,
                   Revised(c) ? ", and of each window and key only its final result" : "");
  }
  const std::string delay = FormatDuration(p.delay), late = FormatDuration(p.lateness);
  if (p.delay == 0) {
    s += "Watermark: the latest event time read so far (no --delay: events are expected in time "
         "order).\n";
  } else {
    fmt::format_to(out,
                   "Watermark: the latest event time read so far minus {}, so events may arrive up "
                   "to {} out of "
                   "order.\n",
                   delay, delay);
  }
  if (p.idle_timeout > 0) {
    const std::string idle = FormatDuration(p.idle_timeout);
    fmt::format_to(
        out,
        "Idle inputs (--idle-timeout): an input waited on (a pipe{}) that has produced no line "
        "for {} of wall-clock time stops holding the watermark back; when it produces lines "
        "again, those behind the watermark are late. When every input is idle, event time moves "
        "on with the wall clock from the last line read, so the last windows fire {} or more "
        "after it.{}\n",
        c.follow ? (c.hold ? ", a followed file, or a file read to its end" : " or a followed file")
                 : (c.hold ? ", or a file read to its end" : ""),
        idle, idle,
        c.state_path.empty() ? ""
                             : " The time each input last produced a line is kept in the "
                               "state, so idleness carries across runs.");
  }
  if (c.follow) {
    s += "Follow (--follow): plain files are read as they grow, like tail -F, until a signal "
         "stops the run; a file renamed away by a rotation is read to its end, then the new file "
         "at its path from its start; a file truncated in place is read again from its start, "
         "with a warning.\n";
  }
  // What happens at the end of the input: with --hold the windows wait for the next run.
  const std::string at_end =
      c.hold ? "at the end of the input, open windows stay open for the next run (--hold), and "
               "each input holds the watermark at its last event, except a file a log rotation "
               "renamed away, which is finished once read to its end"
             : "at the end of the input, all open windows are written";
  const std::string when = p.lateness == 0
                               ? "the window's end"
                               : "the window's end + " + late + " (the allowed lateness)";
  if (c.early > 0) {
    const std::string early = FormatDuration(c.early);
    fmt::format_to(out,
                   "Early results (--early {}): while a window is open, each time the watermark "
                   "passes its start + {}, 2*{}, ... (before its end{}), a provisional result "
                   "(\"phase\":\"early\") for each key whose result changed since its last "
                   "one.\n",
                   early, early, early, w.is_session() ? "; a session's start as it is then" : "");
  }
  if (c.early_every > 0) {
    const std::string every = FormatDuration(c.early_every);
    fmt::format_to(out,
                   "Early results by the wall clock (--early-every {}): while a window is open, "
                   "every {} of wall-clock time (at each multiple of {} since 1970 UTC), also "
                   "while no input comes, a provisional result (\"phase\":\"early\") for each key "
                   "whose result changed since its last one. These depend on when lines arrive, "
                   "not only on the input: for live input only (a pipe, a terminal, --follow).{}\n",
                   every, every, every,
                   c.state_path.empty() ? ""
                                        : " Each such firing is followed by a checkpoint, so a "
                                          "resumed run never writes its results again.");
  }
  const bool early = c.early > 0 || c.early_every > 0;
  if (p.emit == EmitMode::kFinal && !early) {
    fmt::format_to(out,
                   "Results: a window's results are written once, when the watermark reaches {}; "
                   "{}.\n",
                   when, at_end);
  } else if (p.emit == EmitMode::kFinal) {
    fmt::format_to(out,
                   "Results: a window's last result (\"phase\":\"on_time\",\"final\":true) is "
                   "written when the watermark reaches {}; {}. Every result has a \"revision\", "
                   "0, 1, 2... per window and key.\n",
                   when, at_end);
  } else {
    fmt::format_to(out,
                   "Results: a window's results are {}written (\"phase\":\"on_time\") when the "
                   "watermark reaches the window's end; {}. Every result has a \"revision\", "
                   "0, 1, 2... per window and key.\n",
                   early ? "" : "first ", at_end);
    if (p.lateness == 0) {
      s += "Revisions: none can follow, since there is no allowed lateness (--lateness): the "
           "on-time result is the last (\"final\":true).\n";
    } else {
      fmt::format_to(out,
                     "Revisions: for {} after that, each late event accepted into the window "
                     "writes its result "
                     "again, with the next revision, at once (\"phase\":\"late\"); when the "
                     "watermark reaches the window's end + {}, its result is written once more, "
                     "\"final\":true: no more change comes.\n",
                     late, late);
    }
  }
  if (c.changes == ChangeFormat::kRetract) {
    s += "Changes (--changes retract): a window and key's first result is written with "
         "\"op\":\"+\"; each later one right after its previous result written again with "
         "\"op\":\"-\"";
    s += c.window.is_session() ? ", and so are the last results of the sessions a session "
                                 "grew from or swallowed in a merge"
                               : "";
    s += c.having.empty() ? ".\n"
                          : "; --having tests every result: one that stops matching takes "
                            "the last matching one back, one that starts matching is an "
                            "insert.\n";
  } else if (c.changes == ChangeFormat::kDebezium) {
    s += "Changes (--changes debezium): each result is an envelope {\"op\",\"before\","
         "\"after\"}: \"c\" for a window and key's first result, \"u\" with the previous "
         "result as before for each later one, \"d\" for a result taken back";
    s += c.window.is_session() ? " (the sessions a session grew from or swallowed: a d for "
                                 "each, then a c, since their bounds changed)"
                               : "";
    s += c.having.empty() ? ".\n"
                          : "; --having tests every result: one that stops matching is a d "
                            "of the last matching one, one that starts matching a c.\n";
  }
  s += Revised(c) ? "Order: results written at one moment are sorted by the time they became due "
                    "(an early time, a window's end, or its end + the lateness), then window end, "
                    "window start, then key.\n"
                  : "Order: results written at one moment are sorted by window end, window start, "
                    "then key.\n";
  fmt::format_to(out,
                 "Late events: an event is dropped and counted when the watermark has already "
                 "reached the end{} "
                 "of every window it belongs to; {}.\n",
                 p.lateness == 0 ? "" : " + " + late,
                 c.late_output.empty()
                     ? "a warning at the end says how many (keep them with --late-output FILE)"
                     : "it is written to " + c.late_output);
  fmt::format_to(out, "Bad lines (not JSON, no usable time): {}.\n",
                 c.on_error == OnError::kFail ? "the run stops at the first one, with exit status 3"
                 : c.errors_output.empty()
                     ? "skipped and counted, the first five shown on standard error"
                     : "skipped, counted and written to " + c.errors_output);
  if (!c.state_path.empty()) {
    fmt::format_to(out,
                   "State: {} keeps the open windows, the watermark and how far each input was "
                   "read, committed together with the output; a later run of the same query "
                   "continues from there, reading only new bytes (an input is known by its first "
                   "bytes, so a rotated file is found under its new name).\n",
                   c.state_path);
  }
  fmt::format_to(
      out, "Output: {} to {}.\n",
      c.format == OutputFormat::kCsv ? "CSV with a header row"
      : c.format != OutputFormat::kTable ? "one JSON object per line"
      : !c.state_path.empty() || c.follow
          ? "aligned text tables, one for the windows of each firing,"
          : "an aligned text table, written at the end of the run",
      c.output == "-" ? "standard output" : c.output);
  if (c.local_times)
    fmt::format_to(out,
                   "Window bounds (--local-times): window_start and window_end in the local time "
                   "of {} with its UTC offset (2024-03-31T00:00:00+01:00), not in UTC.\n",
                   c.window.zone.name());
  if (c.window_label) {
    WindowLabel label;
    if (WindowLabel::Create(c.window, &label).ok())
      fmt::format_to(out,
                     "Window label (--window-label): window_label after window_end, each "
                     "window's start in {} as {}.\n",
                     c.window.zone.name(), label.Describe());
  }
  // Each line as visible text: a control character in a name cannot act on a terminal.
  std::string visible;
  for (size_t pos = 0; pos < s.size();) {
    const size_t nl = std::min(s.find('\n', pos), s.size());
    visible += VisibleText(std::string_view(s).substr(pos, nl - pos)) + "\n";
    pos = nl + 1;
  }
  *result = std::move(visible);
  return Status::Ok();
}

Status ExplainSql(const EngineConfig& c, SqlDialect dialect, std::string* out) {
  QueryPlan plan;
  if (Status s = BuildQueryPlan(c, &plan); !s.ok()) return s;
  switch (dialect) {
    case SqlDialect::kDuckDb:
      *out = DuckDbSql(plan);
      break;
    case SqlDialect::kFlink:
      *out = FlinkSql(plan);
      break;
    case SqlDialect::kClickHouse:
      *out = ClickHouseSql(plan);
      break;
  }
  return Status::Ok();
}

}  // namespace logtide
