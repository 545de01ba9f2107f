// logtide_faults: the logtide command with fault injection, for the crash and fault tests. The
// faults come from the environment (the logtide binary reads none of these):
//   LOGTIDE_TEST_KILL_AT=POINT:N      SIGKILL at POINT of checkpoint N (POINT: before-flush,
//                                     before-commit, after-commit)
//   LOGTIDE_TEST_COMPACT_SLACK=N      compact the window log past 2 x live rows + N (default
//                                     0, as logtide; a large N lets the log grow long)
//   LOGTIDE_TEST_FAIL_WRITES=N        every write to an output after the N-th fails (ENOSPC)
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cli.h"

namespace {

std::string g_kill_point;
uint64_t g_kill_checkpoint = 0;

void KillAt(const char* point, uint64_t checkpoint) {
  if (checkpoint == g_kill_checkpoint && g_kill_point == point) std::raise(SIGKILL);
}

}  // namespace

int main(int argc, char** argv) {
  logtide::FaultHooks faults;
  if (const char* v = std::getenv("LOGTIDE_TEST_KILL_AT")) {
    const char* colon = std::strchr(v, ':');
    if (colon != nullptr) {
      g_kill_point.assign(v, colon);
      g_kill_checkpoint = std::strtoull(colon + 1, nullptr, 10);
      faults.at_checkpoint = KillAt;
    }
  }
  if (const char* v = std::getenv("LOGTIDE_TEST_COMPACT_SLACK"))
    faults.compact_slack = std::strtoull(v, nullptr, 10);
  if (const char* v = std::getenv("LOGTIDE_TEST_FAIL_WRITES"))
    faults.fail_writes_after = std::strtoll(v, nullptr, 10);
  return logtide::Main(argc, argv, faults);
}
