// `logtide inspect STATE`: the state file's checkpoint as JSON (man/logtide.1, STATE).
#pragma once

#include <string>

#include "util/status.h"

namespace logtide {

// Renders the state at `path` as one JSON object, reading it without taking its lock: every
// counter of the job, and the binding, checked against every row as a resumed run checks it.
// Errors: Corruption (damaged, edited, foreign or empty), Refused (another version's format),
// IOError.
Status InspectState(const std::string& path, std::string* json);

}  // namespace logtide
