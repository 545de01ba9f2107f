// The command line: flags to an engine run, results to exit codes. See man/logtide.1.
#include "cli.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <regex>
#include <optional>
#include <string>
#include <vector>

#include "engine/correction_stats.h"
#include "engine/engine.h"
#include "engine/validate_config.h"
#include "config_file.h"
#include "explain.h"
#include "flag_definitions.h"
#include "flags.h"
#include "help.h"
#include "inspect.h"
#include "state_command.h"
#include "plan/query_plan.h"
#include "progress.h"
#include "state/state_store.h"
#include "util/diag.h"
#include "util/edit_distance.h"

namespace logtide {
namespace {

void PrintStats(const Engine& engine, double seconds) {
  // This run's numbers; with --state, the job's totals too, under "job".
  const EngineStats st = engine.run_stats();
  const EngineStats& job = engine.stats();
  auto ignored = [&](const EngineStats& s) {
    std::string text;
    for (size_t i = 0; i < s.ignored_values.size(); ++i) {
      fmt::format_to(std::back_inserter(text), "{}\"{}\":{}", i == 0 ? "" : ",",
                     engine.config().aggs[i].name, s.ignored_values[i]);
    }
    return text;
  };
  // With overlapping windows, the events that missed some of them, and the windows missed.
  auto partly = [&](const EngineStats& s) {
    if (!engine.config().window.overlaps()) return std::string();
    return fmt::format(",\"partly_late_events\":{},\"missed_windows\":{}", s.partly_late_events,
                       s.missed_windows);
  };
  Diag(stderr,
       "{{\"lines\":{},\"events\":{},\"bad_lines\":{},\"late_events\":{}{},\"windows_emitted\":{},"
       "\"ignored_values\":{{{}}},{}{}{}\"bytes_read\":{},\"seconds\":{:.3f},\"mb_per_s\":{:.1f}{}}}"
       "\n",
       st.lines, st.events, st.bad_lines, st.late_events, partly(st), st.windows_emitted,
       ignored(st),
       engine.config().where.empty() ? "" : fmt::format("\"filtered\":{},", st.filtered),
       // This run's records that --having let through: a cron job's "did anything match".
       engine.config().having.empty()
           ? ""
           : fmt::format("\"having_matched\":{},", engine.having_matched()),
       // Update mode with --lateness: how much this run's on-time records were corrected.
       engine.corrections() == nullptr
           ? ""
           : fmt::format("\"corrections\":{},",
                         engine.corrections()->StatsJson(AggNames(engine.config()))),
       st.bytes_read, seconds,
       seconds > 0 ? static_cast<double>(st.bytes_read) / 1e6 / seconds : 0.0,
       engine.config().state_path.empty()
           ? std::string()
           : fmt::format(
                 ",\"checkpoints\":{},\"checkpoint_seconds\":{:.3f},\"last_checkpoint_rows\":{},"
                 "\"job\":{{\"lines\":{},\"events\":{},\"bad_lines\":{},\"late_events\":{}{},"
                 "\"windows_emitted\":{},\"ignored_values\":{{{}}}{}}}",
                 st.checkpoints, st.checkpoint_seconds, st.last_checkpoint_rows, job.lines,
                 job.events, job.bad_lines, job.late_events, partly(job), job.windows_emitted,
                 ignored(job),
                 engine.config().where.empty() ? ""
                                               : fmt::format(",\"filtered\":{}", job.filtered)));
}

// Prints a usage error, then the help line of the flag it names (or the nearest flag to an
// unknown one), not the whole page.
int UsageError(const CLI::App& app, const std::string& message) {
  Diag(stderr, "logtide: usage error: {}\n", message);
  std::smatch m;
  static const std::regex kFlag("--?[a-zA-Z][a-zA-Z-]*");
  std::string flag;
  if (std::regex_search(message, m, kFlag)) flag = m.str();
  const CLI::Option* opt = flag.empty() ? nullptr : app.get_option_no_throw(flag);
  if (opt == nullptr && !flag.empty()) {
    // An unknown flag: suggest the closest known one.
    size_t best = 3;
    for (const CLI::Option* o : app.get_options()) {
      for (const std::string& name : o->get_lnames()) {
        size_t d = EditDistance(flag.substr(flag.find_first_not_of('-')), name);
        if (d < best) {
          best = d;
          opt = o;
        }
      }
    }
    if (opt != nullptr)
      Diag(stderr, "Did you mean {}?\n",
           opt->get_name(false, true).substr(0, opt->get_name(false, true).find(',')));
  }
  if (opt != nullptr && !opt->get_lnames().empty()) {
    std::string type = opt->get_type_name();
    Diag(stderr, "  --{}{}{}  {}\n", opt->get_lnames()[0], type.empty() ? "" : " ", type,
         opt->get_description());
  }
  Diag(stderr, "Run 'logtide --help' for all flags, 'man logtide' for the details.\n");
  return kExitUsage;
}

// Which of descriptors 0-2 the run was started without.
bool g_closed[3] = {false, false, false};

// Refuses a run that would read a closed standard input or write its results to a closed
// standard output (they are on /dev/null: the run would read nothing, or lose every record).
Status CheckStandardStreams(const EngineConfig& c) {
  const bool reads_stdin =
      c.inputs.empty() || std::find(c.inputs.begin(), c.inputs.end(), "-") != c.inputs.end();
  if (g_closed[0] && reads_stdin)
    return Status::InvalidArgument(
        "standard input is closed (started with <&-): name the input FILE");
  for (const std::string* out : {&c.output, &c.late_output, &c.errors_output}) {
    if (g_closed[1] && *out == "-") {
      return Status::InvalidArgument(
          "standard output is closed (started with >&-): the results would be lost; write "
          "them with --output FILE");
    }
  }
  return Status::Ok();
}

// Opens each of descriptors 0-2 that is closed (a run started with 2>&- or >&-, as some cron
// and service managers do) on /dev/null, so that no file logtide opens becomes one of them:
// the state file's lock on descriptor 2 would take the warnings, on descriptor 1 the results.
void GuardStandardDescriptors() {
  for (int fd = 0; fd < 3; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    g_closed[fd] = true;
    // The lowest free descriptor: this one, as the ones below it are open.
    const int got = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (got != fd && got >= 0) ::close(got);
  }
}

// Writes `text` to standard output and flushes it. Returns false, after saying so on standard
// error, when the write fails (a full device): such a run must not exit 0.
bool WriteStdout(const std::string& text) {
  if (g_closed[1]) {
    Diag(stderr, "logtide: error: standard output is closed (started with >&-)\n");
    return false;
  }
  const bool ok =
      std::fwrite(text.data(), 1, text.size(), stdout) == text.size() && std::fflush(stdout) == 0;
  if (!ok)
    Diag(stderr, "logtide: error: cannot write to standard output: {}\n", std::strerror(errno));
  return ok;
}

// Runs CLI11's answer to --help or --version (printed to std::cout); a failed write exits 1.
int HelpExit(const CLI::App& app, const CLI::Error& e) {
  const int code = app.exit(e);
  std::cout.flush();
  if (!std::cout || g_closed[1]) {
    Diag(stderr, "logtide: error: cannot write to standard output\n");
    return kExitIoError;
  }
  return code;
}

}  // namespace

int Main(int argc, char** argv, const FaultHooks& faults) {
  GuardStandardDescriptors();
  Engine::InstallStopHandlers();
  CommandFlags flags;
  Options& o = flags.options;
  CLI::App app{"Event-time windowed aggregation over newline-delimited JSON logs.", "logtide"};
  DefineFlags(&app, &flags);
  SetUpHelp(&app);
  const bool& progress = flags.progress;
  std::string& explain = flags.explain;
  const std::string& inspect_path = flags.inspect_path;
  CLI::App* inspect = flags.inspect;

  // --config FILE: the file's options go before the command line's (which win).
  std::vector<std::string> user(argv + 1, argv + argc), config_args, config_inputs;
  for (size_t i = 0; i < user.size(); ++i) {
    std::string path;
    if (user[i] == "--config" && i + 1 < user.size()) path = user[i + 1];
    if (user[i].rfind("--config=", 0) == 0) path = user[i].substr(9);
    if (path.empty()) continue;
    std::vector<FlagInfo> flags;
    for (const CLI::Option* opt : app.get_options()) {
      if (opt->get_lnames().empty()) continue;  // the input files: `inputs` in the file
      FlagInfo f;
      f.name = opt->get_lnames()[0];
      if (f.name == "config" || f.name == "help" || f.name == "version") continue;
      for (const std::string& l : opt->get_lnames()) f.spelled.push_back("--" + l);
      for (const std::string& sn : opt->get_snames()) f.spelled.push_back("-" + sn);
      f.takes_value = opt->get_expected_max() != 0;  // a flag takes none
      f.repeatable = opt->get_items_expected_max() > 1;
      // Values that are text: a number in the file is most likely a unit left off (delay = 3).
      const std::string type = opt->get_type_name();
      f.takes_number = !(type == "DUR" || type == "FILE" || type == "FIELD" ||
                         type == "FORMAT" || type == "SPEC" || type == "ZONE" ||
                         type == "KEYS" || type == "EXPR" || type == "MODE");
      if (type == "DUR") f.example = "\"5s\"";
      flags.push_back(std::move(f));
    }
    Status st = ConfigArgs(path, flags, user, &config_args, &config_inputs);
    if (!st.ok()) return UsageError(app, st.message());
    break;
  }
  std::vector<std::string> all = config_args;
  all.insert(all.end(), user.begin(), user.end());
  std::reverse(all.begin(), all.end());  // CLI11 takes them last first
  try {
    app.parse(all);
  } catch (const CLI::CallForHelp& e) {
    return HelpExit(app, e);
  } catch (const CLI::CallForVersion& e) {
    return HelpExit(app, e);
  } catch (const CLI::ParseError& e) {
    return UsageError(app, e.what());
  }

  if (o.files.empty()) o.files = config_inputs;

  if (inspect->parsed()) {
    std::string json;
    Status st = InspectState(inspect_path, &json);
    if (!st.ok()) {
      Diag(stderr, "logtide: error: {}\n", st.message());
      return st.code() == Status::Code::kCorruption || st.code() == Status::Code::kRefused
                 ? kExitStateRefused
                 : kExitIoError;
    }
    if (!WriteStdout(json + "\n")) return kExitIoError;
    return kExitOk;
  }

  if (flags.state_export->parsed() || flags.state_import->parsed()) return StateCommand(flags);

  if (explain == "true") explain = "words";
  if (explain == "false") explain.clear();
  std::optional<SqlDialect> dialect;
  if (explain == "sql:duckdb") dialect = SqlDialect::kDuckDb;
  if (explain == "sql:flink") dialect = SqlDialect::kFlink;
  if (explain == "sql:clickhouse") dialect = SqlDialect::kClickHouse;
  if (!explain.empty() && explain != "words" && !dialect) {
    return UsageError(app, "--explain=" + explain +
                               ": the mode is words, sql:duckdb, sql:flink or sql:clickhouse (or "
                               "none: words)");
  }

  EngineConfig config;
  Status s = BuildConfig(o, &config);
  config.faults = faults;
  if (s.ok()) s = CheckStandardStreams(config);
  // --explain needs the checked configuration, not an engine: nothing is opened.
  if (s.ok()) s = ValidateConfig(&config);
  if (!s.ok()) return UsageError(app, s.message());
  if (dialect) {
    if (Status st = CheckSqlText(config); !st.ok())
      return UsageError(app, "--explain=" + explain + ": " + st.message());
    const std::vector<std::string> missing = Untranslated(config, *dialect);
    if (!missing.empty()) {
      std::string list;
      for (const std::string& m : missing) list += (list.empty() ? "" : "; ") + m;
      return UsageError(app, "--explain=" + explain +
                                 " cannot translate these faithfully (the SQL would give "
                                 "other results): " +
                                 list);
    }
  }
  if (!explain.empty()) {
    std::string text;
    const Status st = dialect ? ExplainSql(config, *dialect, &text) : Explain(config, &text);
    if (!st.ok()) return UsageError(app, "--explain=" + explain + ": " + st.message());
    if (!WriteStdout(text)) return kExitIoError;
    return kExitOk;
  }
  std::unique_ptr<Engine> engine;
  if (!(s = Engine::Create(config, &engine)).ok()) return UsageError(app, s.message());
  ProgressPrinter printer(stderr, progress);
  auto start = std::chrono::steady_clock::now();
  s = engine->Run(stderr, &printer);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (o.stats) PrintStats(*engine, seconds);
  // A usage error only the opened inputs show (--early-every on files read to their end).
  if (s.code() == Status::Code::kInvalidArgument) return UsageError(app, s.message());
  if (!s.ok()) {
    Diag(stderr, "logtide: error: {}\n", s.message());
    switch (s.code()) {
      case Status::Code::kDataError:
        return kExitBadInput;
      case Status::Code::kBusy:
        return kExitStateBusy;
      case Status::Code::kRefused:
      case Status::Code::kCorruption:
        return kExitStateRefused;
      default:
        return kExitIoError;
    }
  }
  if (engine->stopped_by_signal() != 0) {
    if (config.state_path.empty()) {
      if (Revised(config)) {
        Diag(stderr,
             "logtide: stopped by signal {}: the windows that had closed are written, the open "
             "ones as provisional records (phase early)\n",
             engine->stopped_by_signal());
      } else {
        Diag(stderr,
             "logtide: stopped by signal {}: the windows that had closed are written, the open "
             "ones are not\n",
             engine->stopped_by_signal());
      }
    } else {
      Diag(stderr,
           "logtide: stopped by signal {} after a checkpoint; run again with the same --state "
           "to go on\n",
           engine->stopped_by_signal());
    }
    return 128 + engine->stopped_by_signal();
  }
  return kExitOk;
}

}  // namespace logtide
