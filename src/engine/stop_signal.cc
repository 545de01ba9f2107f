#include "engine/stop_signal.h"

#include <csignal>

namespace logtide {

namespace {

volatile int g_stop_signal = 0;  // sig_atomic_t is int here; LineReader takes an int flag
static_assert(sizeof(std::sig_atomic_t) == sizeof(int));

extern "C" void OnStopSignal(int sig) {
  if (g_stop_signal != 0) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_stop_signal = sig;
}

}  // namespace

void InstallStopHandlers() {
  struct sigaction sa = {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

const volatile int* StopSignalFlag() { return &g_stop_signal; }

}  // namespace logtide
