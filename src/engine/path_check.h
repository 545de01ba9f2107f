// Refusing a run whose files overlap: an output that is also an input (it would be truncated
// before it is read), the state file used as an output, two outputs in one file.
#pragma once

#include "engine/config.h"
#include "util/status.h"

namespace logtide {

// Fails with InvalidArgument, naming both roles and the file, when two of the run's outputs
// (results, --late-output, --errors), its --state file and its inputs are the same file: the
// same device and inode, or the same path when it does not exist yet. Standard input and
// output count as the file they are redirected from or to. (Two inputs may be one file.)
// Also fails when --state is given with a named input that is not a regular file (a pipe,
// `<(...)`): the next run could not continue it from an offset.
Status CheckDistinctPaths(const EngineConfig& config);

}  // namespace logtide
