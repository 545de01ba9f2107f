#include "state/state_store.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

namespace logtide {
namespace {

std::string TempPath() {
  char name[] = "/tmp/logtide_state_XXXXXX";
  int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  close(fd);
  std::remove(name);  // StateStore creates it
  return name;
}

void Cleanup(const std::string& p) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((p + suffix).c_str());
}

TEST_CASE("a checkpoint round-trips, and the window log replays to the live rows") {
  std::string path = TempPath();
  {
    std::unique_ptr<StateStore> st;
    REQUIRE(StateStore::Open(path, false, &st).ok());
    CHECK(st->is_new());
    REQUIRE(st->CheckQuery("window=tumbling:1m\nby=a").ok());
    Checkpoint c;
    c.engine = std::string("\0engine\xff", 8);
    c.inputs.push_back(InputPosition{"app.log", "file", "abc", 3, 100, 7, -5, "tail", 1, 2});
    c.outputs.push_back(OutputPosition{"output", "out.ndjson", 1234});
    c.window_ops = {
        {StateOp::kPut, "p1a", "1"}, {StateOp::kPut, "p1b", "2"}, {StateOp::kPut, "p2a", "3"}};
    REQUIRE(st->Commit(c).ok());
    c.window_ops = {{StateOp::kPut, "p1a", "4"},
                    {StateOp::kErasePrefix, "p2", ""},
                    {StateOp::kErase, "p1b", ""},
                    {StateOp::kPut, "p3", "5"}};
    c.checkpoints = 2;
    REQUIRE(st->Commit(c).ok());
  }
  std::unique_ptr<StateStore> st;
  REQUIRE(StateStore::Open(path, false, &st).ok());
  CHECK_FALSE(st->is_new());
  REQUIRE(st->CheckQuery("window=tumbling:1m\nby=a").ok());
  Checkpoint c;
  REQUIRE(st->Load(&c).ok());
  CHECK(c.engine == std::string("\0engine\xff", 8));
  CHECK(c.checkpoints == 2);
  REQUIRE(c.inputs.size() == 1);
  CHECK(c.inputs[0].offset == 100);
  CHECK(c.inputs[0].max_time == -5);
  CHECK(c.inputs[0].ino == 2);
  REQUIRE(c.outputs.size() == 1);
  CHECK(c.outputs[0].length == 1234);
  CHECK(c.windows == std::vector<std::pair<std::string, std::string>>{{"p1a", "4"}, {"p3", "5"}});
  CHECK(c.window_log_rows == 7);

  // Another query is refused, naming what differs.
  Status s = st->CheckQuery("window=tumbling:5m\nby=a");
  CHECK(s.code() == Status::Code::kRefused);
  CHECK_THAT(
      s.message(),
      Catch::Contains("window: the state has \"tumbling:1m\", this run has \"tumbling:5m\""));

  // A second open while the first holds the lock.
  std::unique_ptr<StateStore> second;
  CHECK(StateStore::Open(path, false, &second).code() == Status::Code::kBusy);
  st.reset();
  Cleanup(path);
}

TEST_CASE("a file that is not a state is refused and left alone") {
  std::string path = TempPath();
  std::ofstream(path) << "hello, not a database\n";
  std::unique_ptr<StateStore> st;
  Status s = StateStore::Open(path, false, &st);
  CHECK(s.code() == Status::Code::kCorruption);
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  CHECK(line == "hello, not a database");
  Cleanup(path);
}

}  // namespace
}  // namespace logtide
