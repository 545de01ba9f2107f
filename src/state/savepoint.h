// Savepoints: a state file's last checkpoint as text (`logtide state export`), and a new state
// file made from one (`logtide state import`) that resumes as the original would. The text is
// NDJSON, one object per line (man/logtide.1, SAVEPOINTS, has the grammar):
//
//   {"savepoint":1,"logtide":"0.1.0","state_format":3,"query":"...","finished":false,
//    "checkpoints":12,"sum":"..."}                        the header: the writer's version and
//                                                         state format, the query's text as
//                                                         the state's identity check reads it
//   {"section":"inputs","version":4,"data":"BASE64","sum":"..."}    one per section, by name
//   {"info":"watermark","value":"JSON TEXT","sum":"..."}            inspect's facts, by name
//   {"window":"BASE64","value":"BASE64","sum":"..."}                the live window rows, by key
//   {"end":{"sections":6,"info":5,"windows":9},"sum":"..."}         the counts
//
// Sections and window rows are the components' own encodings, with the section's version: a
// later logtide reads them as it reads the same bytes in a state file (it migrates older
// versions and refuses newer ones, naming them). Every line ends with "sum", the XXH64 (16
// lowercase hex digits) of its bytes before `,"sum":` seeded with the previous line's sum (0
// for the header): an edited, reordered, added or lost line is refused at its line number.
#pragma once

#include <cstdio>
#include <string>

#include "util/status.h"

namespace logtide {

// The savepoint format this logtide writes, and the newest it reads.
inline constexpr int kSavepointFormat = 2;

// Writes the last checkpoint of the state file at `state_path` to `out` as a savepoint. Reads
// the file as `logtide inspect` does (no lock; a running job's last commit). Errors: those of
// StateStore::Read; Refused for a state with no checkpoint; IOError when writing fails.
Status ExportSavepoint(const std::string& state_path, std::FILE* out);

// Makes the state file `state_path`, which must not exist (an empty file is refused by
// StateStore::Open), from the savepoint
// read from `in` (named `name` in messages). Errors: Corruption naming the line and the reason
// for a damaged or edited savepoint, Refused for one from a newer logtide or for an existing
// `state_path`; nothing is created then.
Status ImportSavepoint(std::FILE* in, const std::string& name, const std::string& state_path);

}  // namespace logtide
