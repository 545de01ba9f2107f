// logtide's version, as --version and savepoints say it.
#pragma once

namespace logtide {

inline constexpr const char* kLogtideVersion = "0.1.0";

}  // namespace logtide
