// --explain: the query in words, from the checked configuration, without reading any input.
#pragma once

#include <string>

#include "engine/config.h"

namespace logtide {

// Returns a few paragraphs saying what will be read, the windows, the watermark rule, when
// results are written and what happens to late events.
std::string Explain(const EngineConfig& config);

}  // namespace logtide
