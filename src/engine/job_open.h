// What a run decides about its job when it opens, before the first line: how its inputs are
// opened, whether a new job may write to its outputs, whether a resumed job whose stream ended
// has anything to do, which inputs are followed, and whether and how lines are parsed on threads.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "engine/config.h"
#include "engine/parse_pool.h"
#include "input/input_set.h"
#include "util/status.h"

namespace logtide {

// The inputs' options from the configuration (all but the callbacks into the watermark and
// idleness); `warn` gets the inputs' warnings.
InputSet::Options InputOptions(const EngineConfig& config,
                               std::function<void(const std::string&)> warn);

// A new job with --state keeps what it writes across runs; outputs that already hold data
// (named files; standard output through '>>' is appended to on purpose) are someone else's, or
// an earlier job's whose state is gone. Errors: Refused for the first such output.
Status RefuseUsedOutputs(const EngineConfig& config);

// The stream of a resumed job ended in an earlier run: with no new input there is nothing to
// do. Errors: Refused when an input has new data; those of reading it.
Status CheckEndedStream(const EngineConfig& config, InputSet* inputs);

// --follow: the plain files (not those a rotation renamed away, which are finished) are
// followed; a compressed one is read to its end, with a warning.
void FollowInputs(InputSet* inputs, const std::function<void(const std::string&)>& warn);

// --early-every writes records by the wall clock: only for input that may keep coming (a
// pipe, a terminal, a file --follow reads as it grows). Errors: InvalidArgument, naming the
// first input, when every input is a file read to its end, where the records would depend on
// how fast it is read.
Status CheckLiveInput(const EngineConfig& config, InputSet* inputs);

// Whether worker threads parse ahead. Sets *live when an input may keep coming (a pipe, a
// followed file): then what was decided goes out at a deadline.
bool ParseOnThreads(const EngineConfig& config, InputSet* inputs, bool idleness, bool* live);

// Starts the pool that reads and parses every input: `workers` worker threads (0: the
// engine's thread alone), stopping at a non-zero *stop. Errors: ParsePool::Start's.
Status StartParsing(const EngineConfig& config, InputSet* inputs, int workers,
                    const volatile int* stop, std::unique_ptr<ParsePool>* pool);

}  // namespace logtide
