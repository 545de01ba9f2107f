// Following a plain file as `tail -F` does: at the end of what was read, watching the file and
// its path for what changes (it grows, is truncated in place, or its path holds another file
// once a rotation renamed it away), and opening the file that replaced it. LineReader reads the
// bytes; this says when and where to read on.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <string>

#include "util/status.h"

namespace logtide {

// What changed about a followed file at the end of what was read.
enum class FollowState {
  kUnchanged,  // nothing (its path holding no file, or no regular file, is waited on too)
  kGrew,       // it holds more bytes than were read
  kTruncated,  // it holds fewer bytes than were read: truncated in place
  kRotated,    // its path holds another regular file: it was renamed away
};

// The file being followed, as its reader has it open.
struct FollowedFile {
  int fd;
  uint64_t position;  // bytes read from it
  uint64_t dev;       // its device and inode when opened
  uint64_t ino;
};

class FileFollower {
 public:
  // Follows the file at `path`. `warn` receives the warnings of a truncation; `on_switch` (may
  // be empty) is called before reading goes on in the file that replaced it.
  FileFollower(std::string path, std::function<void(const std::string&)> warn,
               std::function<void()> on_switch);

  // Returns what changed about `file` (see FollowState). A grown file wins over a rotation:
  // what was written to it before it was renamed away is read first.
  FollowState StateOf(const FollowedFile& file) const;

  enum class Wait {
    kChanged,  // StateOf is no longer kUnchanged
    kStopped,  // *stop was non-zero
    kPending,  // returned while waiting (return_while_waiting)
  };
  // Waits in steps of 10 ms until `file` changes or *stop (when given) is non-zero. With
  // `return_while_waiting`, returns kPending after the first 10 ms and then every 100 ms of
  // waiting; a next call goes on counting, until ResetWait.
  Wait WaitForChange(const FollowedFile& file, const volatile int* stop, bool return_while_waiting);
  // Starts the next wait with the short step again (LineReader::StopWaiting).
  void ResetWait() { waited_ms_ = 0; }

  // Opens the file now at the path, after kRotated: sets *fd (owned by the caller) and *st.
  // An IOError when it cannot be opened or is no regular file.
  Status OpenReplacement(int* fd, struct stat* st) const;

  // Reports that `file`, at `read` bytes, was found truncated: reading goes on from its start.
  void WarnTruncated(uint64_t read) const;
  // Calls on_switch (see the constructor).
  void Switching() const {
    if (on_switch_) on_switch_();
  }

 private:
  std::string path_;
  std::function<void(const std::string&)> warn_;
  std::function<void()> on_switch_;
  int waited_ms_ = 0;  // WaitForChange's wait so far
};

}  // namespace logtide
