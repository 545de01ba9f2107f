// A buffered output: stdout or a file, with the count of bytes handed to the OS. Write errors
// (a full disk, a closed pipe) are kept and reported by Flush() and Close().
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "util/status.h"

namespace logtide {

class OutputFile {
 public:
  OutputFile() = default;
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Opens `path` for writing, truncating it; "-" is standard output.
  Status Open(const std::string& path);
  // Opens `path` to continue a run whose committed output was `committed` bytes long: the file
  // is cut back to that length and written after it. Refused when the file is shorter (it was
  // truncated or replaced). Standard output is treated the same when it is a regular file;
  // a pipe or terminal is just written to (at-least-once).
  // The bytes just before `committed` are read back into tail().
  Status OpenResume(const std::string& path, uint64_t committed);
  // Writes out the buffer and, with `durable`, waits for the data to reach the disk.
  Status Sync(bool durable);
  const std::string& name() const { return name_; }
  bool is_open() const { return fd_ >= 0; }

  // A write error stays in the file's status: Flush, Sync and Close report it.
  void Write(std::string_view bytes) {
    buf_.append(bytes);
    if (buf_.size() >= kFlushAt) (void)Flush();
  }
  // The buffer to append to directly; call MaybeFlush() after.
  std::string* buffer() { return &buf_; }
  void MaybeFlush() {
    if (buf_.size() >= kFlushAt) (void)Flush();
  }
  // Writes out the buffer. Returns the first write error seen so far, if any.
  Status Flush();
  Status Close();
  // The output's length: committed bytes at open plus bytes written to the OS since.
  uint64_t bytes_written() const { return written_; }
  // The last kTailBytes bytes of the output (fewer when it is shorter): what the next run
  // checks the file by (OutputSet), as written or, after OpenResume, as read back.
  static constexpr size_t kTailBytes = 64;
  std::string_view tail() const { return tail_; }
  // Fault injection for tests: each write(2) takes one from *budget, shared by the outputs
  // that are given it, and fails with ENOSPC (as on a full disk) once it is used up.
  void set_write_budget(std::atomic<int64_t>* budget) { write_budget_ = budget; }
  // Called before each write of bytes to the file: an error stops every write (it is the
  // output's error from then on). For inputs that must be checked whole before what was made
  // of them reaches an output (input/line_reader.h, WaitVerified); it must be cheap once they
  // were.
  void set_gate(std::function<Status()> gate) { gate_ = std::move(gate); }

 private:
  static constexpr size_t kFlushAt = 1 << 16;
  int fd_ = -1;
  bool owns_fd_ = false;
  std::string name_;
  std::string buf_;
  uint64_t written_ = 0;
  std::string tail_;
  Status error_;
  std::atomic<int64_t>* write_budget_ = nullptr;
  std::function<Status()> gate_;
};

}  // namespace logtide
