// File paths as the process sees them.
#pragma once

#include <limits.h>
#include <stdlib.h>

#include <string>

namespace logtide {

// The absolute path of `p`: its folder resolved (symbolic links too), then its name (which
// need not exist). `p` itself when its folder cannot be resolved.
inline std::string AbsolutePath(const std::string& p) {
  const size_t slash = p.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : p.substr(0, slash));
  const std::string name = slash == std::string::npos ? p : p.substr(slash + 1);
  char buf[PATH_MAX];
  if (::realpath(dir.c_str(), buf) == nullptr) return p;
  const std::string resolved(buf);
  return resolved == "/" ? "/" + name : resolved + "/" + name;
}

}  // namespace logtide
