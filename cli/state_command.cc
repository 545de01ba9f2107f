#include "state_command.h"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "flags.h"
#include "state/savepoint.h"
#include "util/diag.h"

namespace logtide {

namespace {

int ExitFor(const Status& s) {
  switch (s.code()) {
    case Status::Code::kOk: return kExitOk;
    case Status::Code::kBusy: return kExitStateBusy;
    case Status::Code::kCorruption:
    case Status::Code::kRefused: return kExitStateRefused;
    default: return kExitIoError;
  }
}

}  // namespace

int StateCommand(const CommandFlags& flags) {
  Status s;
  if (flags.state_export->parsed()) {
    s = ExportSavepoint(flags.state_path, stdout);
  } else {
    const std::string& from = flags.savepoint_path;
    std::FILE* in = from == "-" ? stdin : std::fopen(from.c_str(), "rb");
    if (in == nullptr) {
      s = Status::IOError(fmt::format("cannot open savepoint {}: {}", from, std::strerror(errno)));
    } else {
      s = ImportSavepoint(in, from == "-" ? "(standard input)" : from, flags.state_path);
      if (in != stdin) std::fclose(in);
    }
  }
  if (!s.ok()) Diag(stderr, "logtide: error: {}\n", s.message());
  return ExitFor(s);
}

}  // namespace logtide
