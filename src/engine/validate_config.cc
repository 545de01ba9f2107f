#include "engine/validate_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "engine/event_parser.h"
#include "engine/path_check.h"
#include "output/having_filter.h"
#include "time/duration.h"
#include "util/quote.h"
#include "window/window_label.h"

namespace logtide {

Status ValidateConfig(EngineConfig* config) {
  EngineConfig& c = *config;
  if (c.inputs.empty()) c.inputs.push_back("-");
  for (const auto& [name, format] : c.input_formats) {
    if (std::find(c.inputs.begin(), c.inputs.end(), name) == c.inputs.end()) {
      return Status::InvalidArgument(fmt::format(
          "--input-format {}: {} is not one of the inputs (name it as the input is named on the "
          "command line, - for standard input)",
          QuoteForMessage(name + "=" + std::string(InputFormatName(format))),
          QuoteForMessage(name)));
    }
  }
  if (c.aggs.empty()) {
    AggSpec count;
    Status s = ParseAggSpec("count", &count);
    if (!s.ok()) return s;
    c.aggs.push_back(count);
  }
  // Output column names must be unique.
  std::vector<std::string> names = {"window_start", "window_end"};
  if (c.window_label) {
    WindowLabel check;
    if (Status s = WindowLabel::Create(c.window, &check); !s.ok()) return s;
    names.push_back("window_label");
  }
  for (const std::string& k : KeyNames(c)) names.push_back(k);
  for (const AggSpec& a : c.aggs) names.push_back(a.name);
  if (Revised(c)) names.insert(names.end(), {"revision", "phase", "final"});
  if (c.changes == ChangeFormat::kRetract) names.insert(names.begin(), "op");
  if (c.changes != ChangeFormat::kSnapshot) {
    const std::string flag = "--changes " + std::string(ChangeFormatName(c.changes));
    if (!Revised(c)) {
      return Status::InvalidArgument(
          flag + " writes revisions as changes, and --emit final without --early has none (one "
                 "record per window and key, nothing to take back): add --emit update or "
                 "--early DUR, or leave --changes out");
    }
    if (c.format == OutputFormat::kTable) {
      return Status::InvalidArgument(
          flag + " cannot be written as --format table (a table has no rows taken back): use "
                 "--format ndjson, or csv for retract");
    }
    if (c.format == OutputFormat::kCsv && c.changes == ChangeFormat::kDebezium) {
      return Status::InvalidArgument(
          "--changes debezium writes nested before and after records, which --format csv "
          "cannot hold: use --format ndjson, or --changes retract (an op column)");
    }
  }
  if (c.early < 0)
    return Status::InvalidArgument("--early must be longer than 0 (leave it out for none)");
  if (c.early_every < 0)
    return Status::InvalidArgument("--early-every must be longer than 0 (leave it out for none)");
  if (c.early > 0 && !c.window.is_session() && c.early >= c.window.size) {
    return Status::InvalidArgument(fmt::format(
        "--early {} must be shorter than the window ({}): early records come at the window's "
        "start + k*{} before its end",
        FormatDuration(c.early), FormatDuration(c.window.size), FormatDuration(c.early)));
  }
  // Windows, delay and lateness so long that no event time has finite windows, firing and
  // cleanup times: every line would be a bad line.
  Nanos lo = 0, hi = 0;
  c.window.WindowableRange(c.delay, c.lateness, &lo, &hi);
  if (lo > hi) {
    return Status::InvalidArgument(fmt::format(
        "--window {} with --delay {} and --lateness {}: no event time has windows that end "
        "within the times logtide holds (about 1677 to 2262); use shorter windows, delay or "
        "lateness",
        c.window.ToString(), FormatDuration(c.delay), FormatDuration(c.lateness)));
  }
  for (size_t i = 0; i < names.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (names[i] == names[j]) {
        return Status::InvalidArgument(
            fmt::format("two output fields are named \"{}\"; rename an aggregate with NAME=SPEC "
                        "(e.g. --agg total=sum(bytes)) or a key with NAME=EXPR (e.g. --by "
                        "level=.\"log.level\")",
                        names[i]));
      }
    }
  }
  if (Status s = CheckDistinctPaths(c); !s.ok()) return s;
  for (size_t i = 0; i < c.having.size(); ++i) {
    std::unique_ptr<HavingFilter> check;
    if (Status s = HavingFilter::Create({c.having[i]}, RecordFieldsOf(c), nullptr, &check);
        !s.ok())
      return Status::InvalidArgument(fmt::format("{}: {}", HavingLabel(c, i), s.message()));
  }
  // Field paths and the time format are checked here, before anything is opened; the parsers
  // that run are made by the ParsePool.
  std::unique_ptr<EventParser> check;
  return EventParser::Create(c, &check);
}

}  // namespace logtide
