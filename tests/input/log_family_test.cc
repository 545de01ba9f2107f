#include "input/log_family.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace logtide {
namespace {

// A scratch folder, removed at the end, with the named empty files in it.
struct Folder {
  std::string dir;
  explicit Folder(const std::vector<std::string>& files) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != 0 ? tmp : "/tmp") +
                          "/logtide_family_XXXXXX";
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    dir = pattern;
    for (const std::string& f : files) std::ofstream(dir + "/" + f) << "";
  }
  ~Folder() { std::system(("rm -rf '" + dir + "'").c_str()); }
  std::string operator/(const std::string& name) const { return dir + "/" + name; }
};

TEST_CASE("log family: rotation suffixes are a number or a date, then at most .gz or .zst") {
  for (const char* s : {".1", ".12", "-20261202", ".2024-05-01", ".1.gz", ".3.zst", "-2024_05_01.gz"})
    CHECK(IsRotationSuffix(s));
  for (const char* s : {"", ".", ".gz", ".json", "-worker", ".1x", ".lock", "1", ".1.bz2"})
    CHECK_FALSE(IsRotationSuffix(s));
  CHECK(IsGenerationName("app.log.1", "app.log"));
  CHECK_FALSE(IsGenerationName("app.log", "app.log"));
  CHECK_FALSE(IsGenerationName("app.logs.1", "app.log"));
}

TEST_CASE("log family: a log named with a generation is listed from its folder") {
  Folder f({"app.log", "app.log.1", "app.log.2.gz", "app.log.json", "other.log"});
  // As a glob made before a rotation gives them: app.log.2.gz is not among the names.
  const InputNames n = ListInputNames({f / "other.log", f / "app.log.1", f / "app.log"});
  CHECK(n.names == std::vector<std::string>{f / "other.log", f / "app.log", f / "app.log.1",
                                            f / "app.log.2.gz"});
  CHECK(n.listed == std::vector<bool>{false, true, true, true});
}

TEST_CASE("log family: a log named alone, and names in no family, stay as given") {
  Folder f({"app.log", "app.log.1"});
  const InputNames n = ListInputNames({f / "app.log", "-"});
  CHECK(n.names == std::vector<std::string>{f / "app.log", "-"});
  CHECK(n.listed == std::vector<bool>{false, false});
}

TEST_CASE("log family: a generation given that is gone stays among the names, not listed") {
  Folder f({"app.log", "app.log.1"});
  const InputNames n = ListInputNames({f / "app.log", f / "app.log.1", f / "app.log.9"});
  CHECK(n.names == std::vector<std::string>{f / "app.log", f / "app.log.1", f / "app.log.9"});
  CHECK(n.listed == std::vector<bool>{true, true, false});
}

TEST_CASE("log family: the outermost log is the family's") {
  Folder f({"app.log", "app.log.1", "app.log.1.1"});
  const InputNames n = ListInputNames({f / "app.log.1", f / "app.log", f / "app.log.1.1"});
  CHECK(n.names == std::vector<std::string>{f / "app.log", f / "app.log.1", f / "app.log.1.1"});
}

}  // namespace
}  // namespace logtide
