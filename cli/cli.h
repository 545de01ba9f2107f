// The logtide command: parses the flags, runs the engine or `inspect`, and returns the exit
// status (man/logtide.1, EXIT STATUS). Shared by the logtide binary and the test build that
// injects faults (tests/faults/).
#pragma once

#include "engine/config.h"

namespace logtide {

// Runs the command line `argv` with `faults` set in the engine's configuration (the logtide
// binary passes none). Writes results to standard output, diagnostics to standard error.
int Main(int argc, char** argv, const FaultHooks& faults);

}  // namespace logtide
