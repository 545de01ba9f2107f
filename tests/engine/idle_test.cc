// --idle-timeout through the whole engine, on a pipe, with a clock the test moves: an input
// that waits longer than the timeout (by that clock) lets its last window fire while the pipe
// stays open, and what it sends after is late.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "engine/engine.h"
#include "time/clock.h"
#include "time/duration.h"
#include "window/window_spec.h"

namespace logtide {
namespace {

class TestClock final : public Clock {
 public:
  explicit TestClock(Nanos t) : now_(t) {}
  Nanos Now() const override { return now_.load(); }
  void Set(Nanos t) { now_ = t; }

 private:
  std::atomic<Nanos> now_;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Waits (real time, generously) until `path` holds `lines` lines.
bool WaitForLines(const std::string& path, size_t lines) {
  for (int i = 0; i < 500; ++i) {
    const std::string text = ReadFile(path);
    if (static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) >= lines) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

void Write(int fd, const std::string& text) {
  REQUIRE(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
}

TEST_CASE("an idle pipe lets its last window fire by the injected clock; later events are late") {
  const Nanos s = kNanosPerSecond;
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  char dir[] = "/tmp/logtide-idle-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  const std::string out = std::string(dir) + "/out.ndjson";
  const std::string late = std::string(dir) + "/late.ndjson";

  TestClock clock(1'000'000 * s);
  EngineConfig c;
  c.inputs = {"/dev/fd/" + std::to_string(fds[0])};
  c.time_format = "epoch_ms";
  REQUIRE(ParseWindowSpec("tumbling:1s", &c.window).ok());
  c.idle_timeout = 5 * s;
  c.clock = &clock;
  c.output = out;
  c.late_output = late;
  c.threads = GENERATE(1, 3);
  std::unique_ptr<Engine> engine;
  REQUIRE(Engine::Create(c, &engine).ok());
  Status result;
  std::thread run([&] { result = engine->Run(stderr); });

  Write(fds[1], "{\"ts\":1000}\n{\"ts\":1500}\n{\"ts\":2100}\n");
  // The first window fires on the event past it, as always.
  REQUIRE(WaitForLines(out, 1));
  // Quiet for less than the timeout: nothing more fires, however long it waits in real time.
  clock.Set(1'000'004 * s);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(ReadFile(out) == "{\"window_start\":\"1970-01-01T00:00:01Z\",\"window_end\":"
                         "\"1970-01-01T00:00:02Z\",\"count\":2}\n");
  // Past the timeout: event time moves on with the clock and the open window fires, while
  // the pipe is still open.
  clock.Set(1'000'010 * s);
  REQUIRE(WaitForLines(out, 2));
  // Back again, with an event the watermark has passed: late.
  Write(fds[1], "{\"ts\":2200}\n{\"ts\":100000}\n");
  ::close(fds[1]);
  run.join();
  ::close(fds[0]);
  REQUIRE(result.ok());
  CHECK(ReadFile(out) ==
        "{\"window_start\":\"1970-01-01T00:00:01Z\",\"window_end\":\"1970-01-01T00:00:02Z\","
        "\"count\":2}\n"
        "{\"window_start\":\"1970-01-01T00:00:02Z\",\"window_end\":\"1970-01-01T00:00:03Z\","
        "\"count\":1}\n"
        "{\"window_start\":\"1970-01-01T00:01:40Z\",\"window_end\":\"1970-01-01T00:01:41Z\","
        "\"count\":1}\n");
  CHECK(engine->stats().late_events == 1);
  CHECK(ReadFile(late).find("\"ts\":2200") != std::string::npos);
  std::remove(out.c_str());
  std::remove(late.c_str());
  ::rmdir(dir);
}

}  // namespace
}  // namespace logtide
