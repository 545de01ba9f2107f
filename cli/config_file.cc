#include "config_file.h"

#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include <toml++/toml.h>

#include "util/edit_distance.h"

namespace logtide {

namespace {

std::string Where(const std::string& path, const toml::source_region& at) {
  return fmt::format("{}:{}:{}", path, at.begin.line, at.begin.column);
}

// A scalar as the text a flag takes; false when it is not a string, number or boolean.
bool ScalarText(const toml::node& n, std::string* out) {
  if (auto s = n.value<std::string>(); s && n.is_string()) {
    *out = *s;
  } else if (n.is_integer()) {
    *out = std::to_string(*n.value<int64_t>());
  } else if (n.is_floating_point()) {
    *out = fmt::format("{}", *n.value<double>());
  } else {
    return false;
  }
  return true;
}

}  // namespace

Status ConfigArgs(const std::string& path, const std::vector<FlagInfo>& flags,
                  const std::vector<std::string>& command_line, std::vector<std::string>* args,
                  std::vector<std::string>* inputs) {
  // toml++ reads a directory or a device (/dev/zero, /dev/urandom) as an empty file.
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st)) {
    return Status::InvalidArgument(
        fmt::format("--config {}: not a regular file{}", path,
                    std::filesystem::is_directory(st) ? " (a directory)" : ""));
  }
  toml::table table;
  try {
    table = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    if (e.source().begin.line == 0) {  // not a parse error: the file could not be read
      return Status::InvalidArgument(fmt::format("--config {}: {}", path, e.description()));
    }
    return Status::InvalidArgument(fmt::format(
        "--config {}: not valid TOML: {} (strings are quoted: window = \"tumbling:1m\")",
        Where(path, e.source()), e.description()));
  }
  const auto given = [&](const FlagInfo& f) {
    for (const std::string& a : command_line) {
      for (const std::string& s : f.spelled) {
        if (a == s || (s.size() > 2 && a.rfind(s + "=", 0) == 0)) return true;
      }
    }
    return false;
  };
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    const std::string at = Where(path, node.source());
    if (name == "inputs") {
      const toml::array* list = node.as_array();
      if (list == nullptr) {
        return Status::InvalidArgument(
            fmt::format("--config {}: inputs is a list of files: inputs = [\"app.log\"]", at));
      }
      for (const toml::node& item : *list) {
        if (!item.is_string()) {
          return Status::InvalidArgument(
              fmt::format("--config {}: inputs holds file names, as strings", at));
        }
        inputs->push_back(*item.value<std::string>());
      }
      continue;
    }
    const FlagInfo* flag = nullptr;
    for (const FlagInfo& f : flags) flag = f.name == name ? &f : flag;
    if (flag == nullptr) {
      std::string best;
      size_t best_distance = SIZE_MAX;
      for (const FlagInfo& f : flags) {
        const size_t d = EditDistance(name, f.name);
        if (d < best_distance) best_distance = d, best = f.name;
      }
      const size_t inputs_distance = EditDistance(name, "inputs");
      if (inputs_distance < best_distance) best_distance = inputs_distance, best = "inputs";
      return Status::InvalidArgument(fmt::format(
          "--config {}: unknown key \"{}\"{}; the keys are the long flag names without their "
          "dashes, and inputs for the input files",
          at, name,
          best_distance <= std::max<size_t>(2, name.size() / 3)
              ? fmt::format(" (did you mean \"{}\"?)", best)
              : ""));
    }
    // The command line wins, but the file's value is checked all the same: the file is wrong
    // whatever the command line says, and will be used by a command line without the flag.
    const bool overridden = given(*flag);
    if (node.is_table()) {
      return Status::InvalidArgument(
          fmt::format("--config {}: \"{}\" is a table; options are plain keys", at, name));
    }
    if (!flag->takes_value) {
      if (!node.is_boolean()) {
        return Status::InvalidArgument(
            fmt::format("--config {}: \"{}\" is a switch: write {} = true", at, name, name));
      }
      if (*node.value<bool>() && !overridden) args->push_back("--" + name);
      continue;
    }
    std::vector<const toml::node*> values;
    if (const toml::array* list = node.as_array()) {
      if (!flag->repeatable) {
        return Status::InvalidArgument(
            fmt::format("--config {}: \"{}\" takes one value, not a list", at, name));
      }
      for (const toml::node& item : *list) values.push_back(&item);
    } else {
      values.push_back(&node);
    }
    for (const toml::node* v : values) {
      std::string text;
      if (!ScalarText(*v, &text)) {
        return Status::InvalidArgument(fmt::format(
            "--config {}: \"{}\" takes a string or a number", Where(path, v->source()), name));
      }
      if (!v->is_string() && !flag->takes_number) {
        return Status::InvalidArgument(fmt::format(
            "--config {}: \"{}\" takes a string, not a number{}", Where(path, v->source()),
            name, flag->example.empty() ? "" : fmt::format(": {} = {}", name, flag->example)));
      }
      if (overridden) continue;
      args->push_back("--" + name);
      args->push_back(text);
    }
  }
  return Status::Ok();
}

}  // namespace logtide
