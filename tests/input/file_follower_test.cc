#include "input/file_follower.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace logtide {
namespace {

// A scratch folder with app.log in it, removed at the end.
struct Folder {
  std::string dir;
  std::string log;
  Folder() {
    char name[] = "/tmp/logtide_follower_XXXXXX";
    REQUIRE(mkdtemp(name) != nullptr);
    dir = name;
    log = dir + "/app.log";
  }
  ~Folder() { std::system(("rm -rf '" + dir + "'").c_str()); }
  void Write(const std::string& path, const std::string& bytes, bool append = true) const {
    std::ofstream f(path, append ? std::ios::app : std::ios::trunc);
    f << bytes;
  }
};

// The file at `path`, open, read to `position`.
struct Open {
  int fd;
  struct stat st;
  explicit Open(const std::string& path) {
    fd = ::open(path.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    REQUIRE(::fstat(fd, &st) == 0);
  }
  ~Open() { ::close(fd); }
  FollowedFile At(uint64_t position) const {
    return FollowedFile{fd, position, static_cast<uint64_t>(st.st_dev),
                        static_cast<uint64_t>(st.st_ino)};
  }
};

TEST_CASE("a followed file read to its end is unchanged; more bytes: it grew") {
  Folder f;
  f.Write(f.log, "one\n");
  Open o(f.log);
  FileFollower w(f.log, nullptr, nullptr);
  CHECK(w.StateOf(o.At(4)) == FollowState::kUnchanged);
  CHECK(w.StateOf(o.At(3)) == FollowState::kGrew);
  f.Write(f.log, "two\n");
  CHECK(w.StateOf(o.At(4)) == FollowState::kGrew);
}

TEST_CASE("a followed file shorter than what was read was truncated, and the warning says so") {
  Folder f;
  f.Write(f.log, "one\ntwo\n");
  Open o(f.log);
  std::string warned;
  FileFollower w(
      f.log, [&](const std::string& m) { warned = m; }, nullptr);
  f.Write(f.log, "x\n", /*append=*/false);
  CHECK(w.StateOf(o.At(8)) == FollowState::kTruncated);
  w.WarnTruncated(8);
  CHECK(warned ==
        f.log + " was truncated to fewer bytes than were read (8); following it from its start");
}

TEST_CASE("a followed file renamed away: waited on until a new file is at its path") {
  Folder f;
  f.Write(f.log, "one\n");
  Open o(f.log);
  FileFollower w(f.log, nullptr, nullptr);
  REQUIRE(std::rename(f.log.c_str(), (f.log + ".1").c_str()) == 0);
  CHECK(w.StateOf(o.At(4)) == FollowState::kUnchanged);  // no file at the path yet
  REQUIRE(::mkdir(f.log.c_str(), 0700) == 0);            // no regular file there either
  CHECK(w.StateOf(o.At(4)) == FollowState::kUnchanged);
  REQUIRE(::rmdir(f.log.c_str()) == 0);
  f.Write(f.log, "new\n");
  CHECK(w.StateOf(o.At(4)) == FollowState::kRotated);
  int fd = -1;
  struct stat st;
  REQUIRE(w.OpenReplacement(&fd, &st).ok());
  CHECK(st.st_ino != o.st.st_ino);
  ::close(fd);
}

TEST_CASE("a followed file that grew before it was renamed away has grown: its end is read first") {
  Folder f;
  f.Write(f.log, "one\n");
  Open o(f.log);
  FileFollower w(f.log, nullptr, nullptr);
  f.Write(f.log, "last\n");  // the writer's last line, before the rotation
  REQUIRE(std::rename(f.log.c_str(), (f.log + ".1").c_str()) == 0);
  f.Write(f.log, "new\n");
  CHECK(w.StateOf(o.At(4)) == FollowState::kGrew);
  CHECK(w.StateOf(o.At(9)) == FollowState::kRotated);
}

TEST_CASE("waiting on a followed file returns at a change, at a stop, or while waiting") {
  Folder f;
  f.Write(f.log, "one\n");
  Open o(f.log);
  FileFollower w(f.log, nullptr, nullptr);
  volatile int stop = 0;
  CHECK(w.WaitForChange(o.At(3), &stop, false) == FileFollower::Wait::kChanged);
  CHECK(w.WaitForChange(o.At(4), &stop, true) == FileFollower::Wait::kPending);
  stop = 1;
  CHECK(w.WaitForChange(o.At(4), &stop, false) == FileFollower::Wait::kStopped);
}

TEST_CASE("the replacement of a followed file that is not a regular file cannot be followed") {
  Folder f;
  REQUIRE(::mkdir(f.log.c_str(), 0700) == 0);
  FileFollower w(f.log, nullptr, nullptr);
  int fd = -1;
  struct stat st;
  const Status s = w.OpenReplacement(&fd, &st);
  CHECK(s.message().find("is no longer a regular file; it cannot be followed") !=
        std::string::npos);
  CHECK(fd == -1);
}

}  // namespace
}  // namespace logtide
