#include "input/line_reader.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

namespace logtide {
namespace {

std::string WriteTemp(const std::string& content) {
  char name[] = "/tmp/logtide_line_reader_XXXXXX";
  int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size()));
  close(fd);
  return name;
}

struct Read {
  std::vector<std::string> lines;
  std::vector<uint64_t> offsets;
  std::vector<bool> terminated;
};

Read ReadAll(const std::string& content, size_t buffer) {
  std::string path = WriteTemp(content);
  std::unique_ptr<LineReader> r;
  REQUIRE(LineReader::Open(path, buffer, &r).ok());
  Read out;
  Line line;
  bool have;
  uint64_t expected_number = 0;
  while (r->Next(&line, &have).ok() && have) {
    CHECK(line.number == ++expected_number);
    CHECK(line.capacity >= line.size + LineReader::kPadding);
    out.lines.emplace_back(line.data, line.size);
    out.offsets.push_back(line.offset);
    out.terminated.push_back(line.terminated);
  }
  CHECK(r->bytes_consumed() == content.size());
  std::remove(path.c_str());
  return out;
}

TEST_CASE("lines, offsets and the unterminated last line, at every buffer size") {
  const std::string content = "a\r\nbb\n\nccc";
  for (size_t buffer : {1, 2, 3, 5, 64, 1 << 20}) {
    INFO("buffer " << buffer);
    Read r = ReadAll(content, buffer);
    CHECK(r.lines == std::vector<std::string>{"a", "bb", "", "ccc"});
    CHECK(r.offsets == std::vector<uint64_t>{0, 3, 6, 7});
    CHECK(r.terminated == std::vector<bool>{true, true, true, false});
  }
}

TEST_CASE("an empty input has no lines; a lone newline is one empty line") {
  CHECK(ReadAll("", 4).lines.empty());
  CHECK(ReadAll("\n", 4).lines == std::vector<std::string>{""});
}

TEST_CASE("a missing file is an IOError naming it") {
  std::unique_ptr<LineReader> r;
  Status s = LineReader::Open("/nonexistent/x.log", 16, &r);
  REQUIRE_FALSE(s.ok());
  CHECK(s.code() == Status::Code::kIOError);
  CHECK_THAT(s.message(), Catch::Contains("/nonexistent/x.log"));
}

}  // namespace
}  // namespace logtide
