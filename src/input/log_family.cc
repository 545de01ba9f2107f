#include "input/log_family.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <utility>

namespace logtide {

bool IsRotationSuffix(std::string_view s) {
  if (s.size() < 2 || (s[0] != '.' && s[0] != '-') || s[1] < '0' || s[1] > '9') return false;
  s.remove_prefix(1);
  for (std::string_view ext : {".gz", ".zst"}) {
    if (s.ends_with(ext)) {
      s.remove_suffix(ext.size());
      break;
    }
  }
  for (char c : s) {
    if ((c < '0' || c > '9') && c != '-' && c != '_') return false;
  }
  return !s.empty();
}

bool IsGenerationName(std::string_view name, std::string_view log) {
  return name.size() > log.size() && name.starts_with(log) &&
         IsRotationSuffix(name.substr(log.size()));
}

namespace {

// The log `log` and the regular files of its folder named as its generations, in byte order,
// each named as `log` names the folder.
std::vector<std::string> ListFamily(const std::string& log) {
  const size_t slash = log.rfind('/');
  const std::string prefix = slash == std::string::npos ? "" : log.substr(0, slash + 1);
  const std::string base = log.substr(prefix.size());
  std::vector<std::string> out{log};
  DIR* d = ::opendir(prefix.empty() ? "." : prefix.c_str());
  if (d == nullptr) return out;
  while (const dirent* e = ::readdir(d)) {
    if (!IsGenerationName(e->d_name, base)) continue;
    struct stat st;
    if (::fstatat(::dirfd(d), e->d_name, &st, 0) != 0 || !S_ISREG(st.st_mode)) continue;
    out.push_back(prefix + e->d_name);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

InputNames ListInputNames(const std::vector<std::string>& given) {
  // The families' logs: names that another given name is a generation of, and that are not
  // themselves a generation of another such log.
  const auto is_log = [&](const std::string& name) {
    if (name == "-") return false;
    return std::any_of(given.begin(), given.end(),
                       [&](const std::string& g) { return IsGenerationName(g, name); });
  };
  std::vector<std::string> logs;
  for (const std::string& name : given) {
    if (is_log(name) && std::find(logs.begin(), logs.end(), name) == logs.end()) logs.push_back(name);
  }
  std::erase_if(logs, [&](const std::string& log) {
    return std::any_of(logs.begin(), logs.end(),
                       [&](const std::string& other) { return IsGenerationName(log, other); });
  });
  InputNames out;
  std::vector<bool> placed(logs.size(), false);
  for (const std::string& name : given) {
    size_t f = 0;
    while (f < logs.size() && name != logs[f] && !IsGenerationName(name, logs[f])) ++f;
    if (f == logs.size()) {
      out.names.push_back(name);
      out.listed.push_back(false);
      continue;
    }
    if (placed[f]) continue;
    placed[f] = true;
    // The family as listed, and the names given of it that the listing lacks: such a name is
    // opened as given (a generation gone since the glob is judged by the state, as before).
    std::vector<std::pair<std::string, bool>> members;
    for (std::string& member : ListFamily(logs[f])) members.emplace_back(std::move(member), true);
    for (const std::string& g : given) {
      if (g != logs[f] && !IsGenerationName(g, logs[f])) continue;
      if (std::none_of(members.begin(), members.end(), [&](const auto& m) { return m.first == g; }))
        members.emplace_back(g, false);
    }
    std::sort(members.begin(), members.end());
    for (auto& [member, listed] : members) {
      out.names.push_back(std::move(member));
      out.listed.push_back(listed);
    }
  }
  return out;
}

}  // namespace logtide
