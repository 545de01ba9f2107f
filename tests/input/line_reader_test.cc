#include "input/line_reader.h"
#include "input/gzip_data.h"

#include <xxhash.h>
#include <zlib.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

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

// What a reader under a line-length limit returns for each line.
struct Got {
  uint64_t offset, end_offset, number;
  std::string data;  // the line, or a too long line's first bytes
  uint64_t full_size;
  bool too_long, terminated;
  bool operator==(const Got& o) const {
    return offset == o.offset && end_offset == o.end_offset && number == o.number &&
           data == o.data && full_size == o.full_size && too_long == o.too_long &&
           terminated == o.terminated;
  }
};
std::ostream& operator<<(std::ostream& os, const Got& g) {
  return os << "{" << g.offset << "-" << g.end_offset << " #" << g.number << " \"" << g.data
            << "\" " << g.full_size << (g.too_long ? " too long" : "")
            << (g.terminated ? "" : " unterminated") << "}";
}

// The lines of `file` (the bytes written to disk; `content` what they decode to) read with
// Next() under `limit`.
std::vector<Got> NextUnderLimit(const std::string& file, size_t content_size, size_t buffer,
                                size_t limit) {
  std::string path = WriteTemp(file);
  std::unique_ptr<LineReader> r;
  REQUIRE(LineReader::Open(path, buffer, &r).ok());
  r->set_max_line_length(limit);
  std::vector<Got> out;
  Line line;
  bool have;
  while (r->Next(&line, &have).ok() && have) {
    CHECK(line.capacity >= line.size + LineReader::kPadding);
    out.push_back(Got{line.offset, line.end_offset, line.number, std::string(line.data, line.size),
                      line.full_size, line.too_long, line.terminated});
  }
  CHECK(r->bytes_consumed() == content_size);
  std::remove(path.c_str());
  return out;
}

// The same read in blocks (ReadBlock, as the worker threads do), split into lines as they do:
// a line longer than the limit is a block of its own, or a line of a block held whole that the
// caller finds longer than the limit. *largest: the largest the block buffer grew.
std::vector<Got> BlocksUnderLimit(const std::string& file, size_t content_size, size_t target,
                                  size_t limit, size_t* largest = nullptr) {
  std::string path = WriteTemp(file);
  std::unique_ptr<LineReader> r;
  REQUIRE(LineReader::Open(path, 1 << 16, &r).ok());
  r->set_max_line_length(limit);
  std::vector<Got> out;
  std::vector<char> block;
  size_t size = 0;
  uint64_t offset = 0, expected_offset = 0, number = 0;
  LongLine long_line;
  std::atomic<bool> cancel{false};
  bool cancelled = false;
  if (largest != nullptr) *largest = 0;
  while (r->ReadBlock(target, &block, &size, &offset, &long_line, cancel, &cancelled).ok() &&
         size > 0) {
    CHECK(offset == expected_offset);
    if (largest != nullptr) *largest = std::max(*largest, block.size());
    if (long_line.size != 0) {
      CHECK(size == LineReader::LongLinePrefix(limit));
      out.push_back(Got{offset, offset + long_line.consumed, ++number,
                        std::string(block.data(), size), long_line.size, true,
                        long_line.terminated});
      expected_offset = offset + long_line.consumed;
      continue;
    }
    for (size_t pos = 0; pos < size;) {
      const char* d = block.data() + pos;
      const LineEnd e = EndOfLine(d, static_cast<const char*>(std::memchr(d, '\n', size - pos)),
                                  block.data() + size);
      const bool too_long = e.size > limit;
      out.push_back(Got{offset + pos, offset + pos + e.consumed, ++number,
                        std::string(d, too_long ? LineReader::LongLinePrefix(limit) : e.size),
                        e.size, too_long, e.terminated});
      pos += e.consumed;
    }
    expected_offset = offset + size;
  }
  CHECK(expected_offset == content_size);
  CHECK(r->bytes_consumed() == content_size);
  std::remove(path.c_str());
  return out;
}

TEST_CASE("a line longer than the limit is returned too long; the next line's offset is exact") {
  // issue 28 item 8: the line is not held; its first bytes are, and the lines around it are
  // read as they would be without it.
  const std::string content =
      "ab\n" + std::string(100, 'x') + "\r\n" + "cd\n" + std::string(50, 'y');
  const std::vector<Got> expected = {
      {0, 3, 1, "ab", 2, false, true},
      {3, 105, 2, std::string(10, 'x'), 100, true, true},
      {105, 108, 3, "cd", 2, false, true},
      {108, 158, 4, std::string(10, 'y'), 50, true, false},
  };
  for (size_t buffer : {1, 2, 3, 5, 11, 12, 13, 64, 1 << 20}) {
    INFO("buffer " << buffer);
    CHECK(NextUnderLimit(content, content.size(), buffer, 10) == expected);
  }
  for (size_t target : {1, 2, 11, 12, 13, 64, 1 << 20}) {
    INFO("block " << target);
    CHECK(BlocksUnderLimit(content, content.size(), target, 10) == expected);
  }
}

TEST_CASE("lines at the limit are whole; one byte more is too long, '\\r' not counted") {
  const std::string content = std::string("12345678\n") + "123456789\n" + "12345678\r\n" +
                              "123456789\r\n" + "\n" + "123456789";
  const std::vector<Got> expected = {
      {0, 9, 1, "12345678", 8, false, true},   {9, 19, 2, "12345678", 9, true, true},
      {19, 29, 3, "12345678", 8, false, true}, {29, 40, 4, "12345678", 9, true, true},
      {40, 41, 5, "", 0, false, true},         {41, 50, 6, "12345678", 9, true, false},
  };
  for (size_t buffer = 1; buffer <= 24; ++buffer) {
    INFO("buffer " << buffer);
    CHECK(NextUnderLimit(content, content.size(), buffer, 8) == expected);
  }
  for (size_t target = 1; target <= 24; ++target) {
    INFO("block " << target);
    CHECK(BlocksUnderLimit(content, content.size(), target, 8) == expected);
  }
}

TEST_CASE("a too long line keeps at most kLongLinePrefix bytes, and a block stays small") {
  const std::string content = "{}\n" + std::string(1 << 20, 'a') + "\n{}\n";
  const std::vector<Got> expected = {
      {0, 3, 1, "{}", 2, false, true},
      {3, 3 + (1 << 20) + 1, 2, std::string(LineReader::kLongLinePrefix, 'a'), 1 << 20, true, true},
      {3 + (1 << 20) + 1, 3 + (1 << 20) + 4, 3, "{}", 2, false, true},
  };
  CHECK(NextUnderLimit(content, content.size(), 4096, 4000) == expected);
  size_t largest = 0;
  CHECK(BlocksUnderLimit(content, content.size(), 64, 4000, &largest) == expected);
  // The block grew to the limit (and a '\r') at most, never to the line.
  CHECK(largest <= 4002 + LineReader::kPadding);
}

TEST_CASE("a too long line of a gzip input is dropped as it is decompressed") {
  std::string content;
  for (int i = 0; i < 3000; ++i) content += "{\"ts\":" + std::to_string(i) + "}\n";
  const uint64_t long_at = content.size();
  content += "{\"v\":\"" + std::string(300000, 'z') + "\"}\n";
  const uint64_t after = content.size();
  content += "{\"last\":1}";
  const std::string gz = Gzip(content);
  for (bool blocks : {false, true}) {
    INFO((blocks ? "ReadBlock" : "Next"));
    const std::vector<Got> got = blocks ? BlocksUnderLimit(gz, content.size(), 5000, 1000)
                                        : NextUnderLimit(gz, content.size(), 5000, 1000);
    REQUIRE(got.size() == 3002);
    CHECK(got[2999] == Got{long_at - 12, long_at, 3000, "{\"ts\":2999}", 11, false, true});
    CHECK(got[3000] ==
          Got{long_at, after, 3001, "{\"v\":\"" + std::string(994, 'z'), 300008, true, true});
    CHECK(got[3001] == Got{after, content.size(), 3002, "{\"last\":1}", 10, false, false});
  }
}

TEST_CASE("a dropped line keeps its tail and, with set_hash_bytes, the hash of what came before") {
  // A checkpoint of standard input keeps the hash of every byte consumed, one of a compressed
  // file the bytes just before its offset: a dropped line's bytes are gone when it is consumed.
  std::string ends;
  for (int i = 0; i < 70; ++i) ends += static_cast<char>('A' + i % 26);
  const std::string content = "{}\n" + std::string(5000, 'x') + ends + "\r\n" + "{}\n";
  const uint64_t end = content.size() - 3;
  const std::string tail = content.substr(end - LineReader::kDroppedTail, LineReader::kDroppedTail);
  const uint64_t hash = XXH64(content.data(), end, 0);
  for (const std::string& file : {content, Gzip(content)}) {
    std::string path = WriteTemp(file);
    for (size_t buffer : {7, 100, 4096}) {
      INFO("Next, buffer " << buffer << (file == content ? "" : ", gzip"));
      std::unique_ptr<LineReader> r;
      REQUIRE(LineReader::Open(path, buffer, &r).ok());
      r->set_max_line_length(100);
      r->set_hash_bytes(true);
      Line line;
      bool have;
      REQUIRE((r->Next(&line, &have).ok() && have && !line.dropped));
      REQUIRE((r->Next(&line, &have).ok() && have));
      CHECK(line.dropped);
      CHECK(line.end_offset == end);
      CHECK(std::string(line.tail) == tail);
      REQUIRE(line.hash_after != nullptr);
      CHECK(XXH64_digest(line.hash_after) == hash);
    }
    for (size_t target : {7, 100, 4096}) {
      INFO("ReadBlock, block " << target << (file == content ? "" : ", gzip"));
      std::unique_ptr<LineReader> r;
      REQUIRE(LineReader::Open(path, 1 << 16, &r).ok());
      r->set_max_line_length(100);
      r->set_hash_bytes(true);
      std::vector<char> block;
      size_t size = 0;
      uint64_t offset = 0;
      LongLine long_line;
      std::atomic<bool> cancel{false};
      bool cancelled = false;
      while (r->ReadBlock(target, &block, &size, &offset, &long_line, cancel, &cancelled).ok() &&
             size > 0 && long_line.size == 0) {
      }
      REQUIRE(long_line.size == 5070);
      CHECK(offset + long_line.consumed == end);
      CHECK(long_line.tail == tail);
      REQUIRE(long_line.hash_after != nullptr);
      CHECK(XXH64_digest(long_line.hash_after.get()) == hash);
    }
    std::remove(path.c_str());
  }
}

}  // namespace
}  // namespace logtide
