// Completing and checking a configuration before anything is opened or read.
#pragma once

#include "engine/config.h"
#include "util/status.h"

namespace logtide {

// Fills in the defaults (standard input when no input is named, a count when no aggregate is)
// and checks what no flag alone can: the output fields' names are unique, the run's files are
// distinct (path_check.h), and the field paths and the time format are usable (the event
// parser is built once). Idempotent. --explain uses it without an Engine; Engine::Create calls
// it. Errors: InvalidArgument naming the rule and the flag to change.
Status ValidateConfig(EngineConfig* config);

}  // namespace logtide
