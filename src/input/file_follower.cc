#include "input/file_follower.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace logtide {

FileFollower::FileFollower(std::string path, std::function<void(const std::string&)> warn,
                           std::function<void()> on_switch)
    : path_(std::move(path)), warn_(std::move(warn)), on_switch_(std::move(on_switch)) {}

FollowState FileFollower::StateOf(const FollowedFile& file) const {
  // The path first, then the size: whatever was written to the file before its replacement
  // appeared at the path is seen as growth, however the two checks and the writer interleave.
  // (Sizes first, a line written just before the rotation could fall between them and be
  // taken as never written.)
  struct stat now;
  const bool replaced = ::stat(path_.c_str(), &now) == 0 && S_ISREG(now.st_mode) &&
                        (static_cast<uint64_t>(now.st_dev) != file.dev ||
                         static_cast<uint64_t>(now.st_ino) != file.ino);
  struct stat st;
  if (::fstat(file.fd, &st) == 0) {
    if (static_cast<uint64_t>(st.st_size) > file.position) return FollowState::kGrew;
    if (static_cast<uint64_t>(st.st_size) < file.position) return FollowState::kTruncated;
  }
  // A path with no file (the new one is not created yet), or something else than a file there:
  // waited on, as tail -F does.
  return replaced ? FollowState::kRotated : FollowState::kUnchanged;
}

FileFollower::Wait FileFollower::WaitForChange(const FollowedFile& file, const volatile int* stop,
                                               bool return_while_waiting) {
  while (true) {
    if (stop != nullptr && *stop != 0) return Wait::kStopped;
    if (StateOf(file) != FollowState::kUnchanged) {
      waited_ms_ = 0;
      return Wait::kChanged;
    }
    // As for a pipe: returns once after 10 ms, then about every 100 ms.
    ::poll(nullptr, 0, 10);
    waited_ms_ += 10;
    if (return_while_waiting && (waited_ms_ == 10 || waited_ms_ % 100 == 0)) return Wait::kPending;
  }
}

Status FileFollower::OpenReplacement(int* fd, struct stat* st) const {
  *fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (*fd < 0)
    return Status::IOError(fmt::format("cannot open {}: {}", path_, std::strerror(errno)));
  if (::fstat(*fd, st) != 0 || !S_ISREG(st->st_mode)) {
    ::close(*fd);
    *fd = -1;
    return Status::IOError(
        fmt::format("{} is no longer a regular file; it cannot be followed", path_));
  }
  return Status::Ok();
}

void FileFollower::WarnTruncated(uint64_t read) const {
  if (!warn_) return;
  warn_(
      fmt::format("{} was truncated to fewer bytes than were read ({}); following it from "
                  "its start",
                  path_, read));
}

}  // namespace logtide
