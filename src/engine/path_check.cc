#include "engine/path_check.h"

#include <fmt/format.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "util/paths.h"

namespace logtide {
namespace {

struct File {
  std::string role;  // as a message names it: "--output out.ndjson", "the input app.log"
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  std::string path;  // absolute, for a file that does not exist yet
  bool is_input = false;
};

// Adds the file at `path` ("-": the standard stream `fd`, when it is a regular file).
void Add(std::vector<File>* files, std::string role, const std::string& path, int fd,
         bool is_input) {
  File f;
  f.role = std::move(role);
  f.is_input = is_input;
  struct stat st;
  if (path == "-") {
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      // A pipe or terminal: only another use of the same stream is the same.
      f.path = fd == STDIN_FILENO ? "<stdin>" : "<stdout>";
      files->push_back(std::move(f));
      return;
    }
  } else if (::stat(path.c_str(), &st) != 0) {
    f.path = AbsolutePath(path);
    files->push_back(std::move(f));
    return;
  }
  f.exists = true;
  f.dev = st.st_dev;
  f.ino = st.st_ino;
  files->push_back(std::move(f));
}

}  // namespace

Status CheckDistinctPaths(const EngineConfig& c) {
  std::vector<File> files;
  auto out_role = [](const char* flag, const std::string& path) {
    if (path != "-") return fmt::format("{} {}", flag, path);
    return std::string(flag) == "--output" ? std::string("standard output (the results)")
                                           : fmt::format("{} - (standard output)", flag);
  };
  Add(&files, out_role("--output", c.output), c.output, STDOUT_FILENO, false);
  if (!c.late_output.empty())
    Add(&files, out_role("--late-output", c.late_output), c.late_output, STDOUT_FILENO, false);
  if (!c.errors_output.empty())
    Add(&files, out_role("--errors", c.errors_output), c.errors_output, STDOUT_FILENO, false);
  if (!c.state_path.empty())
    Add(&files, fmt::format("--state {}", c.state_path), c.state_path, -1, false);
  for (const std::string& in : c.inputs) {
    Add(&files, in == "-" ? std::string("standard input") : fmt::format("the input {}", in), in,
        STDIN_FILENO, true);
  }
  for (size_t i = 0; i < files.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      const File& a = files[j];
      const File& b = files[i];
      if (a.is_input && b.is_input) continue;
      const bool same = a.exists && b.exists ? a.dev == b.dev && a.ino == b.ino
                                             : !a.exists && !b.exists && a.path == b.path;
      if (!same) continue;
      // Two standard outputs (say --late-output - with results on stdout) are one stream
      // interleaved: refused like two outputs in one file.
      return Status::InvalidArgument(fmt::format(
          "{} and {} are the same file; {}", a.role, b.role,
          a.is_input || b.is_input
              ? "an output there would destroy the input before it is read: write elsewhere"
              : "give each output and the state a file of its own"));
    }
  }
  // The next run of a --state job continues each input from an offset: a named pipe, a
  // process substitution or a device cannot be read again. (Standard input can: the next
  // run's stream is checked against what was read and the bytes skipped.)
  if (!c.state_path.empty()) {
    for (const std::string& in : c.inputs) {
      struct stat st;
      // (A directory, or a file that does not exist, fails as an input error when opened.)
      if (in == "-" || ::stat(in.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
        continue;
      return Status::InvalidArgument(fmt::format(
          "the input {} is {}, which --state cannot read again from an offset in the next run: "
          "give it as standard input (command | logtide ... -), or write it to a file first "
          "(compressed files are read as they are)",
          in, S_ISFIFO(st.st_mode) ? "a pipe" : "not a regular file"));
    }
  }
  return Status::Ok();
}

}  // namespace logtide
