#include "input/byte_source.h"
#include "input/gzip_data.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <thread>

#include "input/line_reader.h"

// The compressed test data is made with zlib and libzstd's compressors: gzip is read with
// another implementation (ISA-L) than the one that wrote it.
namespace logtide {
namespace {

std::string Zstd(const std::string& text, bool checksum = true) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum ? 1 : 0);
  std::string out(ZSTD_compressBound(text.size()), '\0');
  size_t n = ZSTD_compress2(c, out.data(), out.size(), text.data(), text.size());
  REQUIRE(!ZSTD_isError(n));
  ZSTD_freeCCtx(c);
  out.resize(n);
  return out;
}

// A zstd frame of `text` whose header declares a window of 2^window_log bytes and no content
// size (as a compressor reading a pipe writes it). The data is compressed with a 1 KiB window
// and the header's Window_Descriptor (RFC 8878 3.1.1.1.2) rewritten: a larger window than the
// matches use is still a valid frame, and any window, even one over libzstd's maximum, costs
// the compressor nothing.
std::string ZstdDeclaringWindow(const std::string& text, int window_log) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 10);
  ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
  std::string out(ZSTD_compressBound(text.size()), '\0');
  size_t n = ZSTD_compress2(c, out.data(), out.size(), text.data(), text.size());
  REQUIRE(!ZSTD_isError(n));
  ZSTD_freeCCtx(c);
  out.resize(n);
  REQUIRE((out[4] & 0x20) == 0);  // no Single_Segment_flag: byte 5 is the Window_Descriptor
  REQUIRE(static_cast<unsigned char>(out[5]) == 0);  // 2^10, mantissa 0
  out[5] = static_cast<char>((window_log - 10) << 3);
  return out;
}

// Log-like lines: compressible, but not trivially.
std::string Lines(int n, int seed = 1) {
  std::string s;
  uint32_t x = static_cast<uint32_t>(seed) * 2654435761u;
  for (int i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    s += "{\"ts\":" + std::to_string(1714557600 + i) + ",\"service\":\"s" +
         std::to_string(x % 7) + "\",\"bytes\":" + std::to_string(x % 100000) + "}\n";
  }
  return s;
}

std::string WriteTemp(const std::string& content) {
  char name[] = "/tmp/logtide_byte_source_XXXXXX";
  int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size()));
  close(fd);
  return name;
}

struct Result {
  std::string bytes;
  Status status;
  Compression format = Compression::kNone;
};

// Reads all of fd through a ByteSource in pieces of `piece` bytes.
Result ReadFd(int fd, bool owns, size_t piece) {
  ByteSource src(fd, owns, "test-input");
  Result r;
  std::string buf(piece, '\0');
  while (true) {
    size_t got = 0;
    r.status = src.Read(buf.data(), piece, &got);
    if (!r.status.ok()) break;
    r.bytes.append(buf.data(), got);
    if (got == 0 && src.at_end()) break;
  }
  r.format = src.compression();
  if (r.status.ok()) CHECK(src.position() == r.bytes.size());
  return r;
}

Result ReadFile(const std::string& content, size_t piece = 1 << 16) {
  std::string path = WriteTemp(content);
  Result r = ReadFd(::open(path.c_str(), O_RDONLY), true, piece);
  std::remove(path.c_str());
  return r;
}

TEST_CASE("ByteSource: formats are told by their first bytes") {
  bool decided;
  CHECK(DetectCompression("\x1f\x8b\x08", false, &decided) == Compression::kGzip);
  CHECK(decided);
  CHECK(DetectCompression("\x28\xb5\x2f\xfd", false, &decided) == Compression::kZstd);
  CHECK(decided);
  CHECK(DetectCompression("{\"a\"", false, &decided) == Compression::kNone);
  CHECK(decided);
  DetectCompression("\x1f", false, &decided);  // could still be gzip
  CHECK(!decided);
  DetectCompression("\x28\xb5", false, &decided);  // could still be zstd
  CHECK(!decided);
  CHECK(DetectCompression("\x28\xb5", true, &decided) == Compression::kNone);  // ended: plain
  CHECK(decided);
  CHECK(DetectCompression("", true, &decided) == Compression::kNone);
  CHECK(decided);
}

TEST_CASE("ByteSource: plain bytes pass through unchanged, whatever they start with") {
  for (const std::string& text :
       {std::string(), std::string("\n"), std::string("\x1f"), std::string("\x1f\x8a rest\n"),
        std::string("(\xb5/ not zstd\n"), std::string("(\n"), Lines(3000)}) {
    for (size_t piece : {1, 3, 4096, 1 << 20}) {
      Result r = ReadFile(text, piece);
      REQUIRE(r.status.ok());
      CHECK(r.format == Compression::kNone);
      CHECK(r.bytes == text);
    }
  }
}

TEST_CASE("ByteSource: a gzip member decompresses, read in any piece size") {
  const std::string text = Lines(20000);
  for (size_t piece : {1, 7, 4096, 1 << 20}) {
    INFO("piece " << piece);
    Result r = ReadFile(Gzip(text), piece);
    REQUIRE(r.status.ok());
    CHECK(r.format == Compression::kGzip);
    CHECK(r.bytes == text);
  }
}

TEST_CASE("ByteSource: gzip members one after another are one stream, empty ones too") {
  const std::string a = Lines(5000, 1), b = Lines(7000, 2);
  Result r = ReadFile(Gzip(a) + Gzip("") + Gzip(b) + Gzip(""), 5000);
  REQUIRE(r.status.ok());
  CHECK(r.bytes == a + b);
  // A member that is only a header and an empty body.
  Result e = ReadFile(Gzip(""));
  REQUIRE(e.status.ok());
  CHECK(e.format == Compression::kGzip);
  CHECK(e.bytes.empty());
}

TEST_CASE("ByteSource: zstd frames one after another are one stream, with or without checksum") {
  const std::string a = Lines(5000, 3), b = Lines(9000, 4);
  for (size_t piece : {1, 1000, 1 << 20}) {
    Result r = ReadFile(Zstd(a) + Zstd("") + Zstd(b, false), piece);
    REQUIRE(r.status.ok());
    CHECK(r.format == Compression::kZstd);
    CHECK(r.bytes == a + b);
  }
}

TEST_CASE("ByteSource: a truncated gzip or zstd file is an error naming the offset") {
  const std::string text = Lines(3000);
  for (const std::string& whole : {Gzip(text), Zstd(text), Gzip(text) + Gzip(text)}) {
    // (Shorter than its magic number, a file is plain.)
    for (size_t cut : {size_t{4}, size_t{5}, size_t{11}, whole.size() / 3, whole.size() / 2 + 3,
                       whole.size() - 9, whole.size() - 1}) {
      if (cut >= whole.size()) continue;
      INFO("cut at " << cut << " of " << whole.size());
      Result r = ReadFile(whole.substr(0, cut), 999);
      REQUIRE(!r.status.ok());
      CHECK(r.status.code() == Status::Code::kIOError);
      CHECK_THAT(r.status.message(), Catch::Contains("test-input") &&
                                         Catch::Contains("decompressed offset") &&
                                         Catch::Contains("truncated"));
      // What came out before the error is what the file holds.
      CHECK((text + text).compare(0, r.bytes.size(), r.bytes) == 0);
    }
  }
}

TEST_CASE("ByteSource: every bit flipped in gzip or checksummed zstd data gives an error or the "
          "right bytes") {
  const std::string text = Lines(40);
  for (const std::string& whole : {Gzip(text), Zstd(text)}) {
    int errors = 0;
    for (size_t bit = 0; bit < whole.size() * 8; ++bit) {
      std::string bad = whole;
      bad[bit / 8] = static_cast<char>(bad[bit / 8] ^ (1 << (bit % 8)));
      Result r = ReadFile(bad);
      if (!r.status.ok()) {
        ++errors;
        CHECK_THAT(r.status.message(), Catch::Contains("decompressed offset"));
      } else if (r.bytes != text) {
        // A flip in the first bytes may make it another format (plain): never other bytes
        // of the same one.
        INFO("bit " << bit);
        CHECK(bit < 32);
        CHECK(r.format == Compression::kNone);
      }
    }
    CHECK(errors > static_cast<int>(whole.size()) * 4);
  }
}

TEST_CASE("ByteSource: data after the last gzip member that is not gzip is an error") {
  Result r = ReadFile(Gzip(Lines(10)) + "trailing garbage\n");
  CHECK(!r.status.ok());
  CHECK_THAT(r.status.message(), Catch::Contains("gzip"));
}

TEST_CASE("ByteSource: zero bytes after the last gzip member are padding, as gzip(1) reads "
          "them (issue 28)") {
  const std::string a = Lines(3000, 1), b = Lines(500, 2);
  // 300000 zero bytes span more than one read of compressed bytes.
  for (size_t pad : {size_t{1}, size_t{511}, size_t{4096}, size_t{4097}, size_t{300000}}) {
    for (size_t piece : {size_t{7}, size_t{1} << 16}) {
      INFO("pad " << pad << ", piece " << piece);
      Result r = ReadFile(Gzip(a) + std::string(pad, '\0'), piece);
      REQUIRE(r.status.ok());
      CHECK(r.bytes == a);
      // After several members, the last one empty, too.
      Result m = ReadFile(Gzip(a) + Gzip(b) + Gzip("") + std::string(pad, '\0'), piece);
      REQUIRE(m.status.ok());
      CHECK(m.bytes == a + b);
    }
  }
  // ReadAt and Rewind read through the padding as Read does.
  const std::string padded = Gzip(a) + std::string(70000, '\0');
  std::string path = WriteTemp(padded);
  ByteSource src(::open(path.c_str(), O_RDONLY), true, path);
  REQUIRE(src.Detect().ok());
  std::string out;
  REQUIRE(src.ReadAt(a.size() - 10, 4096, &out).ok());
  CHECK(out == a.substr(a.size() - 10));
  std::remove(path.c_str());
}

TEST_CASE("ByteSource: a non-zero byte after gzip zero padding is an error at its offset "
          "(issue 28)") {
  const std::string a = Lines(300);
  const std::string gz = Gzip(a);
  for (size_t pad : {size_t{1}, size_t{4096}, size_t{300000}}) {
    for (const std::string& after : {std::string("x"), std::string("\x01\0\0"), Gzip(a)}) {
      INFO("pad " << pad << ", then " << after.size() << " bytes");
      Result r = ReadFile(gz + std::string(pad, '\0') + after, 4096);
      REQUIRE(!r.status.ok());
      CHECK(r.status.code() == Status::Code::kIOError);
      CHECK_THAT(r.status.message(),
                 Catch::Contains("test-input: damaged gzip data: a non-zero byte after the zero "
                                 "bytes that follow the last gzip member") &&
                     Catch::Contains("only zero bytes may pad the end of gzip data") &&
                     Catch::Contains("compressed offset " + std::to_string(gz.size() + pad)));
      CHECK(r.bytes == a);  // what came before is read
    }
  }
}

TEST_CASE("ByteSource: a zstd frame made with windowLog 28 and long matching is read "
          "(issue 28)") {
  // What `zstd --long=28` writes from a pipe: the header declares 2^28 even for a small input.
  const std::string text = Lines(2000);
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 28);
  ZSTD_CCtx_setParameter(c, ZSTD_c_enableLongDistanceMatching, 1);
  std::string z(ZSTD_compressBound(text.size()) + 64, '\0');
  ZSTD_inBuffer in = {text.data(), text.size(), 0};
  ZSTD_outBuffer out = {z.data(), z.size(), 0};
  // Continue, then end: ending in the first call would tell the compressor the input's size,
  // and it would shrink the window to fit.
  REQUIRE(!ZSTD_isError(ZSTD_compressStream2(c, &out, &in, ZSTD_e_continue)));
  REQUIRE(ZSTD_compressStream2(c, &out, &in, ZSTD_e_end) == 0);
  ZSTD_freeCCtx(c);
  z.resize(out.pos);
  REQUIRE((z[4] & 0x20) == 0);  // no Single_Segment_flag: byte 5 is the Window_Descriptor
  REQUIRE(static_cast<unsigned char>(z[5]) == (28 - 10) << 3);  // 2^28
  for (size_t piece : {size_t{1000}, size_t{1} << 20}) {
    Result r = ReadFile(z + z, piece);
    REQUIRE(r.status.ok());
    CHECK(r.bytes == text + text);
  }
}

TEST_CASE("ByteSource: zstd windows up to 2^kZstdWindowLogMax are read, larger ones refused "
          "naming the limit (issue 28)") {
  const std::string text = Lines(500);
  for (int log : {27, kZstdWindowLogMax}) {
    INFO("window 2^" << log);
    Result r = ReadFile(Zstd(text) + ZstdDeclaringWindow(text, log));
    REQUIRE(r.status.ok());
    CHECK(r.bytes == text + text);
  }
  // 2^31 is libzstd's maximum; 2^32 is beyond it, though the format allows it.
  for (int log : {kZstdWindowLogMax + 1, 32}) {
    INFO("window 2^" << log);
    const std::string first = Zstd(text);
    Result r = ReadFile(first + ZstdDeclaringWindow(text, log), 999);
    REQUIRE(!r.status.ok());
    CHECK(r.status.code() == Status::Code::kIOError);
    CHECK(r.status.message() ==
          "test-input: a zstd frame needs a window of 2^" + std::to_string(log) +
              " bytes, more than the 2^30 bytes (1 GiB) logtide accepts (files written with "
              "zstd --long=N are read up to N=30) at decompressed offset " +
              std::to_string(text.size()) + " (compressed offset " +
              std::to_string(first.size()) +
              "); decompress it with `zstd -dc --long=31` and pipe that to logtide");
    CHECK(r.bytes == text);  // the frames before it are read
  }
}

TEST_CASE("ByteSource: ReadAt gives decompressed bytes at decompressed offsets; Rewind restarts") {
  const std::string text = Lines(20000);
  for (const std::string& whole : {Gzip(text), Zstd(text), text}) {
    std::string path = WriteTemp(whole);
    ByteSource src(::open(path.c_str(), O_RDONLY), true, path);
    REQUIRE(src.Detect().ok());
    std::string out;
    for (uint64_t offset : {uint64_t{0}, uint64_t{1}, uint64_t{4000}, uint64_t{300000},
                            uint64_t{text.size() - 10}, uint64_t{text.size()}}) {
      REQUIRE(src.ReadAt(offset, 4096, &out).ok());
      CHECK(out == text.substr(offset, 4096));
    }
    std::string buf(100000, '\0');
    size_t got = 0;
    REQUIRE(src.Read(buf.data(), buf.size(), &got).ok());
    REQUIRE(src.Rewind().ok());
    Result again;
    while (true) {
      REQUIRE(src.Read(buf.data(), buf.size(), &got).ok());
      if (got == 0 && src.at_end()) break;
      again.bytes.append(buf.data(), got);
    }
    CHECK(again.bytes == text);
    std::remove(path.c_str());
  }
}

// Writes `data` into a pipe in pieces, pausing between them, as a slow writer would.
Result ReadPipe(const std::string& data, std::vector<size_t> pieces, size_t piece) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  std::thread writer([&] {
    size_t at = 0;
    for (size_t p : pieces) {
      p = std::min(p, data.size() - at);
      if (write(fds[1], data.data() + at, p) != static_cast<ssize_t>(p)) break;
      at += p;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (at < data.size() && write(fds[1], data.data() + at, data.size() - at) < 0) at = 0;
    close(fds[1]);
  });
  Result r = ReadFd(fds[0], true, piece);
  writer.join();
  return r;
}

TEST_CASE("ByteSource: from a pipe (standard input), the look at the first bytes loses none") {
  const std::string text = Lines(2000);
  // Plain, gzip and zstd, arriving a byte or two at a time at first.
  for (const std::string& data : {text, std::string("(\n") + text, std::string("\x1f\n") + text,
                                  Gzip(text), Zstd(text)}) {
    Result r = ReadPipe(data, {1, 1, 2, 1, 100}, 4096);
    REQUIRE(r.status.ok());
    CHECK(r.bytes == (data == Gzip(text) || data == Zstd(text) ? text : data));
  }
  // A pipe that ends after one byte of a magic number is plain.
  Result one = ReadPipe("\x28", {1}, 16);
  REQUIRE(one.status.ok());
  CHECK(one.bytes == "\x28");
}

TEST_CASE("LineReader: a compressed file gives the plain file's lines, offsets and blocks") {
  const std::string text = Lines(30000) + "last line without newline";
  for (const std::string& whole : {Gzip(text), Zstd(text)}) {
    std::string path = WriteTemp(whole);
    std::unique_ptr<LineReader> r;
    REQUIRE(LineReader::Open(path, 1000, &r).ok());
    CHECK(r->compressed());
    Line line;
    bool have;
    uint64_t offset = 0;
    while (r->Next(&line, &have).ok() && have) {
      CHECK(line.offset == offset);
      CHECK(text.compare(offset, line.size, line.data, line.size) == 0);
      offset = line.end_offset;
    }
    CHECK(offset == text.size());
    CHECK(r->bytes_consumed() == text.size());

    // SkipTo decompresses up to the offset and goes on from there; ReadBlock reads the rest.
    REQUIRE(LineReader::Open(path, 1000, &r).ok());
    const uint64_t at = text.find('\n', 123456) + 1;
    std::string skipped;
    REQUIRE(r->SkipTo(at, 7, [&](std::string_view b) { skipped.append(b); }).ok());
    CHECK(skipped == text.substr(0, at));
    std::vector<char> block;
    size_t size;
    uint64_t block_offset;
    std::atomic<bool> cancel{false};
    bool cancelled;
    LongLine long_line;
    std::string rest;
    while (r->ReadBlock(50000, &block, &size, &block_offset, &long_line, cancel, &cancelled).ok() &&
           size > 0) {
      CHECK(block_offset == at + rest.size());
      rest.append(block.data(), size);
    }
    CHECK(rest == text.substr(at));

    // Past the end: refused, with how far the file goes.
    REQUIRE(LineReader::Open(path, 1000, &r).ok());
    uint64_t reached = 0;
    Status s = r->SkipTo(text.size() + 5, 0, [](std::string_view) {}, &reached);
    CHECK(s.code() == Status::Code::kRefused);
    CHECK(reached == text.size());
    std::remove(path.c_str());
  }
}

}  // namespace
}  // namespace logtide
