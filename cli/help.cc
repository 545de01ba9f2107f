#include "help.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace logtide {

const std::vector<std::string> kHelpGroups = {
    "General", "Input and time", "Windows", "Aggregates and expressions",
    "Output",  "State and cron", "Live",
};

namespace {

constexpr size_t kWidth = 80;
constexpr size_t kDescColumn = 30;  // where descriptions start

// Each flag's group, by its first long name.
const std::map<std::string, std::string>& FlagGroups() {
  static const std::map<std::string, std::string> groups = {
      {"help", "General"},
      {"version", "General"},
      {"config", "General"},
      {"explain", "General"},
      {"threads", "General"},
      {"apply-threads", "General"},
      {"io-buffer", ""},  // a testing aid, hidden
      {"input-format", "Input and time"},
      {"time", "Input and time"},
      {"time-format", "Input and time"},
      {"delay", "Input and time"},
      {"max-future", "Input and time"},
      {"on-error", "Input and time"},
      {"max-bad-ratio", "Input and time"},
      {"errors", "Input and time"},
      {"max-line-length", "Input and time"},
      {"window", "Windows"},
      {"tz", "Windows"},
      {"local-times", "Windows"},
      {"window-label", "Windows"},
      {"lateness", "Windows"},
      {"emit", "Windows"},
      {"early", "Windows"},
      {"early-every", "Windows"},
      {"changes", "Windows"},
      {"late-output", "Windows"},
      {"by", "Aggregates and expressions"},
      {"agg", "Aggregates and expressions"},
      {"where", "Aggregates and expressions"},
      {"having", "Aggregates and expressions"},
      {"output", "Output"},
      {"format", "Output"},
      {"stats", "Output"},
      {"progress", "Output"},
      {"quiet", "Output"},
      {"state", "State and cron"},
      {"checkpoint-every", "State and cron"},
      {"checkpoint-interval", "State and cron"},
      {"hold", "State and cron"},
      {"durable", "State and cron"},
      {"reread-replaced", "State and cron"},
      {"overwrite", "State and cron"},
      {"change-outputs", "State and cron"},
      {"allow-missing-inputs", "State and cron"},
      {"follow", "Live"},
      {"idle-timeout", "Live"},
  };
  return groups;
}

constexpr const char* kUsage =
    "Usage: logtide --window SPEC [OPTIONS] [FILE...]\n"
    "       logtide --config FILE [OPTIONS] [FILE...]\n"
    "       logtide --explain[=MODE] --window SPEC [OPTIONS] [FILE...]\n"
    "       logtide inspect STATE\n"
    "       logtide state export STATE > SAVEPOINT\n"
    "       logtide state import SAVEPOINT STATE\n";

// Each example's lines fit in 80 columns; one ending in \ goes on on the next
// (tests/cli/help_test.sh runs each example with --explain).
constexpr const char* kExamples =
    "Examples:\n"
    "  Requests and mean latency per service and minute, as a table:\n"
    "    logtide --window tumbling:1m --by service --agg 'count,avg(ms)' \\\n"
    "      --format table app.log\n"
    "  Minutes with at least 5 server errors:\n"
    "    logtide --window tumbling:1m --where 'status >= 500' --having 'count >= 5' \\\n"
    "      app.log\n"
    "  A cron job: each run reads only the new lines of a growing log:\n"
    "    logtide --window tumbling:5m --by service --state job.db --hold \\\n"
    "      -o out.ndjson app.log\n"
    "  Follow a log as it grows, through rotations:\n"
    "    logtide -f --window tumbling:1m --by level --idle-timeout 30s app.log\n"
    "  The same query as DuckDB SQL:\n"
    "    logtide --window sliding:1h:5m --by service --explain=sql:duckdb app.log\n"
    "\n"
    "Every flag and rule: man logtide.\n";

class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override {
    if (app->get_parent() != nullptr) return CLI::Formatter::make_help(app, name, mode);
    std::string out = make_description(app) + kUsage + make_positionals(app);
    std::vector<std::string> groups = kHelpGroups;
    // A group not in the list (a flag not in FlagGroups: "Options") comes after them.
    for (const std::string& g : app->get_groups()) {
      if (!g.empty() && std::find(groups.begin(), groups.end(), g) == groups.end())
        groups.push_back(g);
    }
    for (const std::string& g : groups) {
      std::vector<const CLI::Option*> opts = app->get_options(
          [&](const CLI::Option* o) { return o->get_group() == g && o->nonpositional(); });
      if (!opts.empty()) out += make_group(g, false, opts);
    }
    out += make_subcommands(app, mode);
    out += "\n";
    out += kExamples;
    return out;
  }

  std::string make_option(const CLI::Option* opt, bool is_positional) const override {
    const std::string name = "  " + make_option_name(opt, is_positional) + make_option_opts(opt);
    const std::vector<std::string> lines = WrapWords(make_option_desc(opt), kWidth - kDescColumn);
    std::string out = name;
    size_t at = name.size();
    if (at + 2 > kDescColumn) {  // the name takes the description's column: a line of its own
      out += "\n";
      at = 0;
    }
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i > 0) {
        out += "\n";
        at = 0;
      }
      out += std::string(kDescColumn - at, ' ') + lines[i];
    }
    return out + "\n";
  }
};

}  // namespace

std::vector<std::string> WrapWords(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::istringstream words(text);
  std::string word, line;
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

void SetUpHelp(CLI::App* app) {
  for (CLI::Option* opt : app->get_options()) {
    if (opt->get_lnames().empty()) continue;  // the input files
    const auto it = FlagGroups().find(opt->get_lnames()[0]);
    if (it != FlagGroups().end()) opt->group(it->second);
  }
  app->formatter(std::make_shared<HelpFormatter>());
}

}  // namespace logtide
