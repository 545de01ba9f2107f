// logtide_faults: the logtide command with fault injection, for the crash and fault tests. The
// faults come from the environment (the logtide binary reads none of these):
//   LOGTIDE_TEST_KILL_AT=POINT:N      SIGKILL at POINT of checkpoint N (POINT: before-flush,
//                                     before-commit, after-commit)
//   LOGTIDE_TEST_RUN_AT=POINT:N       runs the shell command LOGTIDE_TEST_RUN at POINT of
//                                     checkpoint N and waits for it (before a kill at the same
//                                     point): to change the inputs at an exact moment of a run
//   LOGTIDE_TEST_COMPACT_SLACK=N      compact the window log past 2 x live rows + N (default
//                                     0, as logtide; a large N lets the log grow long)
//   LOGTIDE_TEST_FAIL_WRITES=N        every write to an output after the N-th fails (ENOSPC)
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cli.h"

namespace {

struct At {
  std::string point;
  uint64_t checkpoint = 0;
  bool set = false;
  // Parses "POINT:N"; returns false when `v` is not of that form.
  bool Parse(const char* v) {
    const char* colon = v != nullptr ? std::strchr(v, ':') : nullptr;
    if (colon == nullptr) return false;
    point.assign(v, colon);
    checkpoint = std::strtoull(colon + 1, nullptr, 10);
    set = true;
    return true;
  }
  bool Is(const char* p, uint64_t n) const { return set && n == checkpoint && point == p; }
};

At g_kill_at;
At g_run_at;
const char* g_run_command = nullptr;

void AtCheckpoint(const char* point, uint64_t checkpoint) {
  if (g_run_at.Is(point, checkpoint) && g_run_command != nullptr) {
    // A command that failed aborts the run: a test must not go on from a change not made.
    if (std::system(g_run_command) != 0) std::raise(SIGABRT);
  }
  if (g_kill_at.Is(point, checkpoint)) std::raise(SIGKILL);
}

}  // namespace

int main(int argc, char** argv) {
  logtide::FaultHooks faults;
  const bool kill = g_kill_at.Parse(std::getenv("LOGTIDE_TEST_KILL_AT"));
  g_run_command = std::getenv("LOGTIDE_TEST_RUN");
  const bool run = g_run_at.Parse(std::getenv("LOGTIDE_TEST_RUN_AT"));
  if (kill || run) faults.at_checkpoint = AtCheckpoint;
  if (const char* v = std::getenv("LOGTIDE_TEST_COMPACT_SLACK"))
    faults.compact_slack = std::strtoull(v, nullptr, 10);
  if (const char* v = std::getenv("LOGTIDE_TEST_FAIL_WRITES"))
    faults.fail_writes_after = std::strtoll(v, nullptr, 10);
  return logtide::Main(argc, argv, faults);
}
