// The bytes of one input (a file, standard input or a pipe), decompressed when it is
// compressed. Owns the input's file descriptor, the recognition of its format by its first
// bytes (gzip: 1f 8b, zstd: 28 b5 2f fd, anything else is plain; never by the file's name),
// and the decoder with its buffer of compressed bytes. Every offset it takes or reports is an
// offset into the decompressed bytes: the lines, the fingerprints and the checkpoints count
// those, so a file compressed after a run is the same input to the next one.
//
// gzip (ISA-L's igzip inflate) may hold any number of members and zstd (libzstd) any number
// of frames, one after the other. Each member's CRC-32 and length, and each frame's checksum
// when it has one, are checked at its end. Damaged or truncated compressed data is an IOError
// naming the input and the decompressed offset where reading stopped. Zero bytes after the
// last gzip member are padding and end the data (as gzip(1) reads them); anything else there
// is damage. A zstd frame that needs a window over 2^kZstdWindowLogMax bytes is refused with
// an IOError that says so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "util/status.h"

namespace logtide {

enum class Compression { kNone, kGzip, kZstd };

// The largest zstd window read, as a power of two: 2^30 bytes (1 GiB), the window of
// `zstd --long=30`. The decoder allocates a frame's window (less for a frame that declares a
// smaller content size) and fills it as it decodes, and a compressed file has two decoders,
// the reader's and its check's: up to 2 GiB for each such input read at once. zstd(1) itself
// reads windows up to 2^27 unless given --long or --memory; 2^31, its maximum, would double
// that memory for the files only --long=31 writes.
constexpr int kZstdWindowLogMax = 30;

// "plain", "gzip" or "zstd".
const char* CompressionName(Compression c);

// Returns the format of an input whose first bytes are `head`. Sets *decided to false when
// `head` is too short to tell (a proper prefix of a magic number) and more bytes may follow
// (`at_end` false).
Compression DetectCompression(std::string_view head, bool at_end, bool* decided);

class Decoder;

class ByteSource {
 public:
  // Reads `fd`, closing it at the end when `owns`; `name` is for messages. The format is
  // recognised at the first Read() or at Detect().
  ByteSource(int fd, bool owns, std::string name);
  ~ByteSource();
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  // Reads up to n (> 0) bytes into dst. Sets *got to the bytes read, which is 0 at the end of
  // input (at_end() is then true) and may be 0 before it: when a signal interrupted read(2)
  // (interrupted() is then true), or when the compressed bytes read so far decode to nothing
  // yet. Reading a pipe does at most one read(2) per call, so that a poll() on fd() first
  // keeps it from blocking; check buffered() too, since bytes may be waiting in the decoder.
  // Errors: IOError for a failed read(2) or damaged or truncated compressed data.
  Status Read(char* dst, size_t n, size_t* got);
  bool at_end() const { return at_end_; }
  bool interrupted() const { return interrupted_; }
  // True when Read() may return bytes without reading the descriptor.
  bool buffered() const;
  int fd() const { return fd_; }

  // Reads the first bytes until the format is known (blocks on a quiet pipe). Errors: those
  // of read(2).
  Status Detect();
  // The format; kNone until it is known.
  Compression compression() const { return format_; }
  bool detected() const { return detected_; }

  // Moves a plain input that can seek to decompressed `offset` (= its file offset).
  // REQUIRES: detected(), compression() == kNone.
  Status Seek(uint64_t offset);
  // Goes back to the start of a file that can seek: a compressed one restarts its decoder.
  Status Rewind();
  // Decompressed bytes returned so far, plus the offset of the last Seek().
  uint64_t position() const { return position_; }

  // Reads up to n bytes at decompressed `offset` of a file that can seek, without moving the
  // stream position: a plain file is read where it is; a compressed one is decompressed from
  // its start into a scratch decoder, which costs offset + n bytes of decompression (use it
  // near the start). Fewer than n bytes at the end of input.
  Status ReadAt(uint64_t offset, size_t n, std::string* out) const;

 private:
  // One read(2) of the first bytes into head_; decides the format when it can.
  Status Peek();
  // Sets up the decoder for a compressed format, with the peeked bytes as its first input.
  void StartDecoder();
  // Returns an IOError "NAME: WHAT at decompressed offset N (compressed offset M)AFTER".
  Status DecodeError(const std::string& what, const std::string& after = "") const;

  int fd_;
  bool owns_;
  std::string name_;
  bool seekable_ = false;  // a regular file
  Compression format_ = Compression::kNone;
  bool detected_ = false;
  char head_[4];
  size_t head_size_ = 0;   // bytes peeked
  size_t head_taken_ = 0;  // plain: bytes of head_ already returned
  bool at_end_ = false;
  bool raw_end_ = false;  // read(2) returned 0
  bool interrupted_ = false;
  Status failed_;  // damaged compressed data: every later Read() returns it
  uint64_t position_ = 0;
  // Compressed inputs only.
  std::unique_ptr<Decoder> decoder_;
  std::unique_ptr<char[]> in_;  // compressed bytes read, [in_pos_, in_end_) not decoded yet
  size_t in_pos_ = 0;
  size_t in_end_ = 0;
  uint64_t in_offset_ = 0;  // compressed offset of in_[in_pos_]
};

}  // namespace logtide
