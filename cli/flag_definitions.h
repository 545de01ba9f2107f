// The command line's flags: every one is defined here, bound to the options it sets, so that
// Main reads as what the command does.
#pragma once

#include <string>

#include "flags.h"

namespace CLI {
class App;
}  // namespace CLI

namespace logtide {

// What the flags set: the options of the query and the run, and the command's own choices.
struct CommandFlags {
  Options options;
  bool progress = false;  // --progress
  // --explain: empty to run the query; "true" (the flag alone, words), "words", "sql:duckdb",
  // "sql:flink" or "sql:clickhouse" to print it.
  std::string explain;
  std::string config_path;   // --config, read before the flags are parsed (ConfigArgs)
  std::string inspect_path;  // the inspect subcommand's STATE
  CLI::App* inspect = nullptr;  // the inspect subcommand, owned by the app
  // The state subcommand's: `state export STATE`, `state import SAVEPOINT STATE`.
  std::string state_path, savepoint_path;
  CLI::App* state = nullptr;
  CLI::App* state_export = nullptr;
  CLI::App* state_import = nullptr;
};

// Defines logtide's flags, its --version and its inspect and state subcommands on `app`,
// bound to *f.
// REQUIRES: *f outlives `app`'s parsing.
void DefineFlags(CLI::App* app, CommandFlags* f);

}  // namespace logtide
