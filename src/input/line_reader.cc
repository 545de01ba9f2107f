#include "input/line_reader.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "json/extractor.h"

namespace logtide {

const size_t LineReader::kPadding = FieldExtractor::kPadding;

Status LineReader::Open(const std::string& path, size_t buffer_size,
                        std::unique_ptr<LineReader>* out) {
  if (buffer_size < 1) buffer_size = 1;
  if (path == "-") {
    out->reset(new LineReader(STDIN_FILENO, false, "<stdin>", buffer_size));
    return Status::Ok();
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IOError(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  out->reset(new LineReader(fd, true, path, buffer_size));
  return Status::Ok();
}

LineReader::LineReader(int fd, bool owns, std::string name, size_t buffer_size)
    : fd_(fd),
      owns_fd_(owns),
      name_(std::move(name)),
      buf_(buffer_size + kPadding),
      capacity_(buffer_size) {
  struct stat st;
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
    file_size_ = static_cast<uint64_t>(st.st_size);
    dev_ = static_cast<uint64_t>(st.st_dev);
    ino_ = static_cast<uint64_t>(st.st_ino);
  }
}

LineReader::~LineReader() {
  if (owns_fd_) ::close(fd_);
}

Status LineReader::SkipTo(uint64_t offset, uint64_t line,
                          const std::function<void(std::string_view)>& skipped) {
  if (!is_stdin()) {
    if (::lseek(fd_, static_cast<off_t>(offset), SEEK_SET) < 0) {
      return Status::IOError(fmt::format("cannot seek in {}: {}", name_, std::strerror(errno)));
    }
  } else {
    uint64_t left = offset;
    while (left > 0) {
      ssize_t n = ::read(fd_, buf_.data(), std::min<uint64_t>(left, capacity_));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0)
        return Status::IOError(fmt::format("cannot read {}: {}", name_, std::strerror(errno)));
      if (n == 0) {
        return Status::Refused(
            fmt::format("{} has {} bytes, fewer than the {} the state says were already read: it "
                        "is another stream",
                        name_, offset - left, offset));
      }
      skipped(std::string_view(buf_.data(), static_cast<size_t>(n)));
      left -= static_cast<uint64_t>(n);
    }
  }
  consumed_ = offset;
  line_number_ = line;
  return Status::Ok();
}

Status LineReader::ReadAt(uint64_t offset, size_t n, std::string* out) const {
  out->resize(n);
  ssize_t got = ::pread(fd_, out->data(), n, static_cast<off_t>(offset));
  if (got < 0)
    return Status::IOError(fmt::format("cannot read {}: {}", name_, std::strerror(errno)));
  out->resize(static_cast<size_t>(got));
  return Status::Ok();
}

Status LineReader::Fill() {
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == capacity_) {
    capacity_ *= 2;
    buf_.resize(capacity_ + kPadding);
  }
  while (true) {
    ssize_t n = ::read(fd_, buf_.data() + end_, capacity_ - end_);
    if (n < 0) {
      if (errno == EINTR && stop_ != nullptr && *stop_ != 0) {
        interrupted_ = true;
        return Status::Ok();
      }
      if (errno == EINTR) continue;
      return Status::IOError(fmt::format("cannot read {}: {}", name_, std::strerror(errno)));
    }
    if (n == 0) eof_ = true;
    end_ += static_cast<size_t>(n);
    return Status::Ok();
  }
}

Status LineReader::Next(Line* line, bool* have) {
  size_t scan_from = begin_;
  while (true) {
    const char* start = buf_.data() + begin_;
    const char* nl =
        static_cast<const char*>(std::memchr(buf_.data() + scan_from, '\n', end_ - scan_from));
    if (nl != nullptr || (eof_ && end_ > begin_)) {
      size_t len = nl != nullptr ? static_cast<size_t>(nl - start) : end_ - begin_;
      size_t consumed = len + (nl != nullptr ? 1 : 0);
      line->data = start;
      line->size = (len > 0 && start[len - 1] == '\r') ? len - 1 : len;
      line->capacity = buf_.size() - begin_;
      line->offset = consumed_;
      line->end_offset = consumed_ + consumed;
      line->number = ++line_number_;
      line->terminated = nl != nullptr;
      begin_ += consumed;
      consumed_ += consumed;
      *have = true;
      return Status::Ok();
    }
    if (eof_) {
      *have = false;
      return Status::Ok();
    }
    size_t scanned = end_ - begin_;
    Status s = Fill();
    if (!s.ok()) return s;
    if (interrupted_) {
      *have = false;
      return Status::Ok();
    }
    scan_from = begin_ + scanned;
  }
}

}  // namespace logtide
