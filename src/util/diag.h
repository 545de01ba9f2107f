// Diagnostics (warnings, errors, progress) go to a stream that may fail: a full device, a
// closed pipe. Such a write is dropped, never thrown (fmt::print throws, and an uncaught throw
// aborts the run): results and state are what matter, and their writes report their own
// errors (output/output_file.h).
#pragma once

#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <utility>

namespace logtide {

// Formats and writes to `f`, ignoring a failed write.
template <typename... T>
void Diag(std::FILE* f, fmt::format_string<T...> format, T&&... args) {
  const std::string s = fmt::format(format, std::forward<T>(args)...);
  (void)std::fwrite(s.data(), 1, s.size(), f);
}

}  // namespace logtide
