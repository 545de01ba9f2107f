// `logtide state export STATE` and `logtide state import SAVEPOINT STATE` (man/logtide.1,
// SAVEPOINTS): the command's side of state/savepoint.h.
#pragma once

#include "flag_definitions.h"

namespace logtide {

// Runs the state subcommand the flags chose; returns the exit status (errors said on stderr).
int StateCommand(const CommandFlags& flags);

}  // namespace logtide
