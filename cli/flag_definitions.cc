#include "flag_definitions.h"

#include <CLI/CLI.hpp>
#include <string>

#include "state/state_store.h"

namespace logtide {

void DefineFlags(CLI::App* app, CommandFlags* f) {
  Options& o = f->options;
  app->set_version_flag("--version", std::string("logtide ") + kVersion + " (state format " +
                                         std::to_string(StateStore::kFormat) + ")");
  app->add_option("--config", f->config_path,
                  "Read options from a TOML file: its keys are the long flag names without their "
                  "dashes, and inputs for the input files; the command line wins")
      ->type_name("FILE");

  app->add_option("FILE", o.files, "Input files; none or '-' reads standard input");
  app->add_option("--input-format", o.input_formats,
                  "What the input lines are: ndjson (default), logfmt (key=value pairs), or csv "
                  "or tsv, whose first line is the header that names the fields; INPUT=FORMAT "
                  "for one input (repeatable)")
      ->allow_extra_args(false)
      ->type_name("FORMAT");
  app->add_option("--time", o.time_field, "Event-time field, a path as for --by (default ts)")
      ->type_name("FIELD");
  app->add_option(
         "--time-format", o.time_format,
         "auto (default), rfc3339, epoch_s, epoch_ms, epoch_us, epoch_ns, or a strptime pattern")
      ->type_name("FORMAT");
  app->add_option("--window", o.window,
                  "tumbling:SIZE, sliding:SIZE:SLIDE or session:GAP (required); tumbling and "
                  "sliding take :offset=DUR to move their grid")
      ->type_name("SPEC");
  app->add_option("--tz", o.tz,
                  "Time zone of the windows: an IANA name (Europe/Berlin) or local; tumbling "
                  "windows of days, weeks (1w), months (1mo) and sizes dividing a day follow its "
                  "local calendar and wall clock")
      ->type_name("ZONE");
  app->add_flag("--local-times", o.local_times,
                "Write window_start and window_end in the --tz zone's local time with its UTC "
                "offset (2024-03-31T00:00:00+01:00), not in UTC; needs --tz");
  app->add_flag("--window-label", o.window_label,
                "Add window_label after window_end: the window's local start in the --tz zone "
                "(UTC without it) as 2024-03-31 for days, 2024-W13 for weeks, 2024-03 for "
                "months, 2024-03-31T06:00 under a day; tumbling windows only");
  app->add_option("--by", o.by,
                  "Group key: a field path (req.method, .\"log.level\", tags[0]), or NAME=EXPR for "
                  "a derived key; several separated by commas, or --by again")
      ->allow_extra_args(false)
      ->type_name("KEYS");
  app->add_option(
         "--agg", o.aggs,
         "[NAME=]count, count(f), sum(f), min(f), max(f), avg(f), count_distinct(f), "
         "first(f), last(f), quantile(f, Q) (within 1%; median, p50, p90, p95, p99, p999), "
         "approx_count_distinct(f) (0.8% standard error), top_k(f, K); several separated "
         "by commas, or --agg again (default count)")
      ->allow_extra_args(false)
      ->type_name("SPEC");
  app->add_option("--where", o.where,
                  "Only events for which EXPR is true (status >= 500 and startswith(path, "
                  "\"/api/\")); --where again: both must hold")
      ->allow_extra_args(false)
      ->type_name("EXPR");
  app->add_option("--having", o.having,
                  "Only records for which EXPR is true, over their fields (count >= 5); with "
                  "revisions only final records; --having again: both must hold")
      ->allow_extra_args(false)
      ->type_name("EXPR");
  app->add_option("--delay", o.delay,
                  "Out-of-orderness bound: watermark = latest event time - DUR (default 0)")
      ->type_name("DUR");
  app->add_option("--lateness", o.lateness, "Allowed lateness after a window's end (default 0)")
      ->type_name("DUR");
  app->add_option("--max-future", o.max_future,
                  "An event more than DUR ahead of the watermark is a bad line, not a jump of "
                  "event time (a clock glitch; default: no limit)")
      ->type_name("DUR");
  app->add_option("--idle-timeout", o.idle_timeout,
                  "An input that waits with no new line for DUR stops holding the watermark back; "
                  "when all do, event time moves with the wall clock (default: never)")
      ->type_name("DUR");
  app->add_flag("-f,--follow", o.follow,
                "Keep reading files as they grow, across rotations, like tail -F (until stopped "
                "by a signal)");
  app->add_option("--emit", o.emit,
                  "final (default): one record per window and key; update: revisions")
      ->check(CLI::IsMember({"final", "update"}))
      ->type_name("MODE");
  app->add_option("--early", o.early,
                  "While a window is open, a provisional record of each key changed since its "
                  "last one, each time the watermark passes the window's start + k*DUR")
      ->type_name("DUR");
  app->add_option("--early-every", o.early_every,
                  "Live input (a pipe, a terminal, --follow): while a window is open, every DUR "
                  "of wall-clock time, a provisional record of each key changed since its last one")
      ->type_name("DUR");
  app->add_option("--changes", o.changes,
                  "How revisions are written: snapshot (default: the whole record), retract "
                  "(the previous record with op -, then the new one with op +) or debezium "
                  "(op c/u/d envelopes with before and after)")
      ->check(CLI::IsMember({"snapshot", "retract", "debezium"}))
      ->type_name("FORMAT");
  app->add_option("--late-output", o.late_output, "Write events dropped as late to FILE as NDJSON")
      ->type_name("FILE");
  app->add_option("--on-error", o.on_error,
                  "Bad lines: skip (default: count and report) or fail (stop, exit 3)")
      ->check(CLI::IsMember({"skip", "fail"}))
      ->type_name("MODE");
  app->add_option("--max-bad-ratio", o.max_bad_ratio,
                  "Fail (exit 3) when more than this share of the run's lines are bad, 0 to 1; a "
                  "run with no usable line always fails")
      ->check(CLI::Range(0.0, 1.0))
      ->type_name("R");
  app->add_option("--errors", o.errors, "Write bad lines to FILE as NDJSON")->type_name("FILE");
  app->add_option("--max-line-length", o.max_line_length,
                  "A longer line is a bad line, dropped as it is read so it is never held "
                  "(default 16M; K, M, G suffixes)")
      ->type_name("SIZE");
  app->add_option("-o,--output", o.output, "Write results to FILE instead of standard output")
      ->type_name("FILE");
  app->add_option("--format", o.format,
                  "Output format: ndjson (default), csv, or table (aligned columns, as for a "
                  "terminal or a report)")
      ->check(CLI::IsMember({"ndjson", "csv", "table"}))
      ->type_name("FORMAT");
  app->add_flag("--stats", o.stats, "Print a JSON summary on standard error at exit");
  app->add_flag("--progress", f->progress,
                "Show progress on standard error even when it is not a terminal");
  // --explain alone (and `explain = true` in a config file) is "true", read as words; a value
  // is only taken after '=', so that `--explain FILE` still reads FILE as an input.
  app->add_flag("--explain", f->explain,
                "Print how the query will run and exit without reading input: in words, or "
                "with =sql:duckdb as a DuckDB query over the same files, =sql:flink as a Flink "
                "SQL job, =sql:clickhouse as a script for a sharded ClickHouse cluster")
      ->option_text("[=MODE]");
  app->add_option("--threads", o.threads,
                  "Threads that read and parse input (default: the number of cores, at most 8); "
                  "1 does everything on one thread. Output is the same bytes for every N")
      ->check(CLI::Range(1, 256))
      ->type_name("N");
  app->add_option("--apply-threads", o.apply_threads,
                  "Threads that apply events to the windows, each owning the keys of a range of "
                  "key groups, on a job over files (default 1). Output is the same bytes for every "
                  "N, and a --state written with one N resumes with another")
      ->check(CLI::Range(1, 256))
      ->type_name("N");
  app->add_flag("-q,--quiet", o.quiet, "Print no warnings (errors are still printed)");
  app->add_option("--state", o.state,
                  "Keep the job's state in this SQLite file: resume from it, checkpoint to it")
      ->type_name("FILE");
  app->add_option("--checkpoint-every", o.checkpoint_every,
                  "With --state: checkpoint every N lines (default 100000)")
      // A negative or too large N wraps or saturates into "never": refused by the range.
      ->check(CLI::Range(uint64_t{1}, kMaxCheckpointEvery))
      ->type_name("N");
  app->add_option("--checkpoint-interval", o.checkpoint_interval,
                  "With --state: checkpoint at least this often (default 5s)")
      ->type_name("DUR");
  app->add_flag(
      "--hold", o.hold,
      "With --state: at the end of input keep open windows for the next run (growing logs)");
  app->add_flag("--durable", o.durable,
                "With --state: fsync outputs and the state at each checkpoint (power loss)");
  app->add_flag(
      "--reread-replaced", o.reread_replaced,
      "With --state: read an input that was truncated or replaced from its start, instead "
      "of refusing");
  app->add_flag("--overwrite", o.overwrite,
                "With --state: let a new job replace output files that already hold data");
  app->add_flag("--change-outputs", o.change_outputs,
                "With --state: on resume, take the outputs given as the job's (added or moved "
                "ones start empty, ones left off stop) instead of refusing");
  app->add_flag("--allow-missing-inputs", o.allow_missing_inputs,
                "With --state: on resume, let a file the job was reading be left off (its "
                "position is kept) instead of refusing");
  f->inspect = app->add_subcommand("inspect", "Print what a --state file holds, as JSON");
  f->inspect->add_option("STATE", f->inspect_path, "The state file")->required();
  f->state = app->add_subcommand("state", "Savepoints: a state file as text, and back");
  f->state->require_subcommand(1);
  f->state_export = f->state->add_subcommand(
      "export", "Print a state file's last checkpoint as a savepoint (NDJSON)");
  f->state_export->add_option("STATE", f->state_path, "The state file")->required();
  f->state_import = f->state->add_subcommand(
      "import", "Make a new state file from a savepoint ('-': standard input)");
  f->state_import->add_option("SAVEPOINT", f->savepoint_path, "The savepoint")->required();
  f->state_import->add_option("STATE", f->state_path, "The state file to make")->required();
  // Testing aid, not in --help: the initial input buffer size in bytes.
  app->add_option("--io-buffer", o.io_buffer)
      ->group("")
      ->check(CLI::Range(size_t{1}, size_t{1} << 30));
}

}  // namespace logtide
