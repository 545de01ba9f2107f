// --config FILE: options from a TOML file, read with toml++. Each key is a long flag's name
// without its dashes; `inputs` lists input files. The file stands for the arguments it
// translates to, placed before the command line's, and a flag the command line gives is not
// taken from the file (the command line wins).
#pragma once

#include <string>
#include <vector>

#include "util/status.h"

namespace logtide {

struct FlagInfo {
  std::string name;                 // the long name, without dashes
  std::vector<std::string> spelled;  // how the command line may give it: --name, -n
  bool takes_value = true;          // false: a flag (true/false in the file)
  bool repeatable = false;          // an array in the file gives it several times
  // false: the value is text (a duration, a path, an expression...), a string in the file;
  // a number there (delay = 3) is a value of the wrong type. `example` shows it written.
  bool takes_number = true;
  std::string example;
};

// Reads `path` and sets *args to the arguments it stands for: "--name value" for each key
// whose flag is not among `command_line`, and *inputs to its `inputs` (for a command line that
// names none). Errors (InvalidArgument, naming the file, line and column): invalid TOML, an
// unknown key (with the closest flag), a value of the wrong type, a table; a key the command
// line overrides is checked all the same. A path that is not a regular file (a directory, a
// device such as /dev/zero) is refused, naming the path.
Status ConfigArgs(const std::string& path, const std::vector<FlagInfo>& flags,
                  const std::vector<std::string>& command_line, std::vector<std::string>* args,
                  std::vector<std::string>* inputs);

}  // namespace logtide
