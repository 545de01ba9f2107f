#include "output/output_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

namespace logtide {

OutputFile::~OutputFile() { (void)Close(); }

Status OutputFile::Open(const std::string& path) {
  name_ = path == "-" ? "<stdout>" : path;
  if (path == "-") {
    fd_ = STDOUT_FILENO;
    owns_fd_ = false;
    return Status::Ok();
  }
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) return Status::IOError(fmt::format("cannot open {} for writing: {}", path, std::strerror(errno)));
  owns_fd_ = true;
  return Status::Ok();
}

Status OutputFile::Flush() {
  size_t done = 0;
  while (error_.ok() && done < buf_.size()) {
    ssize_t n = ::write(fd_, buf_.data() + done, buf_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = Status::IOError(fmt::format("cannot write to {}: {}", name_, std::strerror(errno)));
      break;
    }
    done += static_cast<size_t>(n);
    written_ += static_cast<uint64_t>(n);
  }
  buf_.clear();
  return error_;
}

Status OutputFile::Close() {
  if (fd_ < 0) return error_;
  Status s = Flush();
  if (owns_fd_ && ::close(fd_) != 0 && s.ok()) {
    s = error_ = Status::IOError(fmt::format("cannot close {}: {}", name_, std::strerror(errno)));
  }
  fd_ = -1;
  return s;
}

}  // namespace logtide
