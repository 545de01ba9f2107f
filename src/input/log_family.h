// A log and its generations as one family. When a job's inputs name a log and a generation of
// it (the shell's app.log* gives app.log app.log.1 app.log.2.gz), a rotation running between
// the shell's glob and the run's open moves the content the glob saw to names it did not
// give: logrotate renames app.log.1 to app.log.2, app.log to app.log.1 and creates a new
// app.log, so every name opened holds the next content and the oldest is missed. The run
// lists the family again as the folder holds it when the run opens its inputs, and opens the
// files of one listing that no rotation step changed while they were opened.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace logtide {

// What rotation tools put after a log's name: '.' or '-', then a number or a date (digits,
// with '-' or '_' between them: .1, -20240501, .2024-05-01), then at most a compression's
// extension (.gz, .zst). Not .json, .lock or -worker: those are other files that share the
// name's start.
bool IsRotationSuffix(std::string_view suffix);

// Whether `name` is a generation of `log`: log's name, then a rotation's suffix.
bool IsGenerationName(std::string_view name, std::string_view log);

// The job's input names with each family listed as its folder holds it now: a name that
// another given name is a generation of is a family's log, and the names of the family (the
// log and every regular file in its folder whose name is a generation of it, as the log's name
// gives the folder) replace those given, in byte order, where the first of them was; a name
// given of a family that the listing lacks (gone since the shell's glob) stays among them,
// not listed. Names in no family stay as given. `listed[i]` says whether names[i] was found
// by a family's listing.
struct InputNames {
  std::vector<std::string> names;
  std::vector<bool> listed;
};
InputNames ListInputNames(const std::vector<std::string>& given);

}  // namespace logtide
