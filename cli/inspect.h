// `logtide inspect STATE`: the state file's checkpoint as JSON (man/logtide.1, STATE).
#pragma once

#include <string>

#include "util/status.h"

namespace logtide {

// Renders the state at `path` as one JSON object, reading it without taking its lock.
// Errors: Corruption (damaged, foreign or empty), Refused (another version's format),
// IOError.
Status InspectState(const std::string& path, std::string* json);

}  // namespace logtide
