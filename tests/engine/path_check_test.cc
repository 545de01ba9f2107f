#include "engine/path_check.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace logtide {
namespace {

// A scratch folder, removed with what it holds.
struct Scratch {
  std::string dir;
  Scratch() {
    char name[] = "/tmp/logtide_paths_XXXXXX";
    REQUIRE(::mkdtemp(name) != nullptr);
    dir = name;
  }
  ~Scratch() { (void)std::system(("rm -rf '" + dir + "'").c_str()); }
  std::string File(const std::string& name, bool create = true) const {
    const std::string p = dir + "/" + name;
    if (create) {
      std::FILE* f = std::fopen(p.c_str(), "w");
      REQUIRE(f != nullptr);
      std::fclose(f);
    }
    return p;
  }
};

bool Holds(const Status& s, const std::string& part) {
  return s.code() == Status::Code::kInvalidArgument && s.message().find(part) != std::string::npos;
}

TEST_CASE("path check: an output that is an input is refused, naming both") {
  Scratch t;
  EngineConfig c;
  c.inputs = {t.File("a.log")};
  c.output = c.inputs[0];
  const Status s = CheckDistinctPaths(c);
  CHECK(Holds(s, "--output " + c.output + " and the input " + c.output + " are the same file"));
  CHECK(Holds(s, "would destroy the input before it is read"));
}

TEST_CASE("path check: the same file under another name (a hard link) is the same file") {
  Scratch t;
  EngineConfig c;
  c.inputs = {t.File("a.log")};
  c.output = t.File("b.log", false);
  REQUIRE(::link(c.inputs[0].c_str(), c.output.c_str()) == 0);
  CHECK(Holds(CheckDistinctPaths(c), "are the same file"));
}

TEST_CASE("path check: two outputs, or the state and an output, in one file are refused") {
  Scratch t;
  EngineConfig c;
  c.inputs = {t.File("a.log")};
  c.output = t.File("out.ndjson", false);  // not made yet: compared by path
  c.late_output = c.output;
  CHECK(Holds(CheckDistinctPaths(c), "give each output and the state a file of its own"));
  c.late_output.clear();
  c.state_path = c.output;
  CHECK(Holds(CheckDistinctPaths(c), "--state " + c.output));
}

TEST_CASE("path check: two inputs may be one file, and distinct files pass") {
  Scratch t;
  EngineConfig c;
  c.inputs = {t.File("a.log"), t.File("a.log", false)};
  c.output = t.File("out.ndjson", false);
  c.late_output = t.File("late.ndjson", false);
  c.errors_output = t.File("errors.ndjson", false);
  c.state_path = t.File("s.db", false);
  CHECK(CheckDistinctPaths(c).ok());
}

TEST_CASE("path check: --state with a named pipe as input is refused") {
  Scratch t;
  EngineConfig c;
  const std::string fifo = t.File("pipe", false);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  c.inputs = {fifo};
  c.output = t.File("out.ndjson", false);
  CHECK(CheckDistinctPaths(c).ok());  // without --state a pipe is read as it comes
  c.state_path = t.File("s.db", false);
  CHECK(Holds(CheckDistinctPaths(c), "is a pipe, which --state cannot read again"));
}

}  // namespace
}  // namespace logtide
