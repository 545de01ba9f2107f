// The whole-file check of a compressed input: damage that still decodes is only found by the
// check at the end of its gzip member or zstd frame, so a compressed file is decompressed once
// in full, from a descriptor of its own and on a thread of its own, while its lines are read.
#pragma once

#include <mutex>
#include <string>
#include <thread>

#include "util/status.h"

namespace logtide {

class CompressedCheck {
 public:
  CompressedCheck() = default;
  CompressedCheck(const CompressedCheck&) = delete;
  CompressedCheck& operator=(const CompressedCheck&) = delete;
  // Waits for a check still running.
  ~CompressedCheck();

  // Starts checking the file open as `fd` (named `name` in messages), on a descriptor of its
  // own: the same file even when it is renamed meanwhile. Only the first call starts a check;
  // later ones do nothing. Thread-safe.
  void Start(int fd, const std::string& name);
  // Waits for the check and returns its error: Ok when it found none, or when none was
  // started. Thread-safe.
  Status Wait();

 private:
  std::mutex mu_;
  bool started_ = false;
  std::thread thread_;
  Status status_;  // written by the thread, read after it was joined
};

}  // namespace logtide
