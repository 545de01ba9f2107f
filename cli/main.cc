// logtide: event-time windowed aggregation over NDJSON logs. See man/logtide.1.
#include <chrono>
#include <cstdio>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "engine/engine.h"
#include "flags.h"

namespace logtide {
namespace {

void PrintStats(const Engine& engine, double seconds) {
  const EngineStats& st = engine.stats();
  std::string ignored;
  for (size_t i = 0; i < st.ignored_values.size(); ++i) {
    fmt::format_to(std::back_inserter(ignored), "{}\"{}\":{}", i == 0 ? "" : ",", engine.config().aggs[i].name,
                   st.ignored_values[i]);
  }
  fmt::print(stderr,
             "{{\"lines\":{},\"events\":{},\"bad_lines\":{},\"late_events\":{},\"windows_emitted\":{},"
             "\"ignored_values\":{{{}}},\"bytes_read\":{},\"seconds\":{:.3f},\"mb_per_s\":{:.1f}}}\n",
             st.lines, st.events, st.bad_lines, st.late_events, st.windows_emitted, ignored, st.bytes_read, seconds,
             seconds > 0 ? static_cast<double>(st.bytes_read) / 1e6 / seconds : 0.0);
}

int Main(int argc, char** argv) {
  Options o;
  CLI::App app{"Event-time windowed aggregation over newline-delimited JSON logs.", "logtide"};
  app.set_version_flag("--version", std::string("logtide ") + kVersion);
  app.set_config("--config", "", "Read options from a TOML file (keys are long flag names)");
  app.allow_config_extras(false);
  app.option_defaults()->always_capture_default();

  app.add_option("FILE", o.files, "Input files; none or '-' reads standard input");
  app.add_option("--time", o.time_field, "Event-time field, a dotted path");
  app.add_option("--time-format", o.time_format,
                 "auto, rfc3339, epoch_s, epoch_ms, epoch_us, epoch_ns, or a strptime pattern");
  app.add_option("--window", o.window, "tumbling:SIZE, sliding:SIZE:SLIDE or session:GAP")->required();
  app.add_option("--by", o.by, "Group key: comma-separated dotted paths (repeatable)")->delimiter(',')->allow_extra_args(false);
  app.add_option("--agg", o.aggs,
                 "[NAME=]count, count(f), sum(f), min(f), max(f), avg(f), count_distinct(f), first(f), last(f) "
                 "(repeatable; default count)")
      ->allow_extra_args(false);
  app.add_option("--delay", o.delay, "Out-of-orderness bound: watermark = max event time - DUR");
  app.add_option("--lateness", o.lateness, "Allowed lateness after a window's end");
  app.add_option("--emit", o.emit, "final: one record per window and key; update: revisions")
      ->check(CLI::IsMember({"final", "update"}));
  app.add_option("--late-output", o.late_output, "Write events dropped as late to FILE as NDJSON");
  app.add_option("--on-error", o.on_error, "Bad lines: skip (count and report) or fail (stop, exit 3)")
      ->check(CLI::IsMember({"skip", "fail"}));
  app.add_option("--errors", o.errors, "Write bad lines to FILE as NDJSON");
  app.add_option("-o,--output", o.output, "Write results to FILE instead of standard output");
  app.add_option("--format", o.format, "Output format: ndjson or csv")->check(CLI::IsMember({"ndjson", "csv"}));
  app.add_flag("--stats", o.stats, "Print a JSON summary on standard error at exit");
  app.add_flag("-q,--quiet", o.quiet, "Print no warnings (errors are still printed)");
  // Testing aid, not in --help: the initial input buffer size in bytes.
  app.add_option("--io-buffer", o.io_buffer)->group("")->check(CLI::Range(size_t{1}, size_t{1} << 30));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "logtide: usage error: {}\nRun 'logtide --help' for the flags, 'man logtide' for details.\n", e.what());
    return kExitUsage;
  }

  EngineConfig config;
  Status s = BuildConfig(o, &config);
  std::unique_ptr<Engine> engine;
  if (s.ok()) s = Engine::Create(config, &engine);
  if (!s.ok()) {
    fmt::print(stderr, "logtide: usage error: {}\n", s.message());
    return kExitUsage;
  }
  auto start = std::chrono::steady_clock::now();
  s = engine->Run(stderr);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (o.stats) PrintStats(*engine, seconds);
  if (!s.ok()) {
    fmt::print(stderr, "logtide: error: {}\n", s.message());
    return s.code() == Status::Code::kDataError ? kExitBadInput : kExitIoError;
  }
  return kExitOk;
}

}  // namespace
}  // namespace logtide

int main(int argc, char** argv) { return logtide::Main(argc, argv); }
