#include "output/output_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

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
  if (fd_ < 0)
    return Status::IOError(
        fmt::format("cannot open {} for writing: {}", path, std::strerror(errno)));
  owns_fd_ = true;
  return Status::Ok();
}

Status OutputFile::OpenResume(const std::string& path, uint64_t committed) {
  name_ = path == "-" ? "<stdout>" : path;
  if (path == "-") {
    fd_ = STDOUT_FILENO;
    owns_fd_ = false;
  } else {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
      return Status::IOError(
          fmt::format("cannot open {} for writing: {}", path, std::strerror(errno)));
    owns_fd_ = true;
  }
  written_ = committed;
  struct stat st;
  if (::fstat(fd_, &st) != 0)
    return Status::IOError(fmt::format("cannot stat {}: {}", name_, std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) return Status::Ok();
  if (static_cast<uint64_t>(st.st_size) < committed) {
    std::string hint = path == "-" ? "; standard output was probably truncated by '>': use '>>' or "
                                     "--output FILE with --state"
                                   : "";
    return Status::Refused(
        fmt::format("{} is {} bytes long but the state says {} bytes were written to it: it was "
                    "truncated or replaced{}",
                    name_, st.st_size, committed, hint));
  }
  {
    // The bytes before the committed length, read through a descriptor of our own (standard
    // output may be write-only).
    const int rd = ::open(fmt::format("/proc/self/fd/{}", fd_).c_str(), O_RDONLY | O_CLOEXEC);
    if (rd < 0) return Status::IOError(fmt::format("cannot read {}: {}", name_, std::strerror(errno)));
    const uint64_t from = committed - std::min<uint64_t>(committed, kTailBytes);
    tail_.resize(static_cast<size_t>(committed - from));
    const ssize_t n = ::pread(rd, tail_.data(), tail_.size(), static_cast<off_t>(from));
    const int err = errno;
    ::close(rd);
    if (n != static_cast<ssize_t>(tail_.size()))
      return Status::IOError(fmt::format("cannot read {}: {}", name_, std::strerror(err)));
  }
  if (::ftruncate(fd_, static_cast<off_t>(committed)) != 0 || ::lseek(fd_, 0, SEEK_END) < 0) {
    return Status::IOError(
        fmt::format("cannot cut {} back to {} bytes: {}", name_, committed, std::strerror(errno)));
  }
  return Status::Ok();
}

Status OutputFile::Sync(bool durable) {
  Status s = Flush();
  if (!s.ok() || !durable || fd_ < 0) return s;
  if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) {
    error_ = Status::IOError(fmt::format("cannot sync {}: {}", name_, std::strerror(errno)));
  }
  return error_;
}

Status OutputFile::Flush() {
  if (gate_ && !buf_.empty() && error_.ok()) error_ = gate_();
  size_t done = 0;
  while (error_.ok() && done < buf_.size()) {
    ssize_t n = write_budget_ != nullptr && write_budget_->fetch_sub(1) <= 0
                    ? (errno = ENOSPC, -1)
                    : ::write(fd_, buf_.data() + done, buf_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = Status::IOError(fmt::format("cannot write to {}: {}", name_, std::strerror(errno)));
      break;
    }
    done += static_cast<size_t>(n);
    written_ += static_cast<uint64_t>(n);
  }
  // Keep the last kTailBytes written.
  if (done >= kTailBytes) {
    tail_.assign(buf_.data() + done - kTailBytes, kTailBytes);
  } else if (done > 0) {
    tail_.append(buf_.data(), done);
    if (tail_.size() > kTailBytes) tail_.erase(0, tail_.size() - kTailBytes);
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
