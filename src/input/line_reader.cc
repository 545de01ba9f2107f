#include "input/line_reader.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "json/extractor.h"

namespace logtide {

const size_t LineReader::kPadding = FieldExtractor::kPadding;

Status LineReader::Open(const std::string& path, size_t buffer_size, std::unique_ptr<LineReader>* out) {
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
    : fd_(fd), owns_fd_(owns), name_(std::move(name)), buf_(buffer_size + kPadding), capacity_(buffer_size) {
  struct stat st;
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) file_size_ = static_cast<uint64_t>(st.st_size);
}

LineReader::~LineReader() {
  if (owns_fd_) ::close(fd_);
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
    const char* nl = static_cast<const char*>(std::memchr(buf_.data() + scan_from, '\n', end_ - scan_from));
    if (nl != nullptr || (eof_ && end_ > begin_)) {
      size_t len = nl != nullptr ? static_cast<size_t>(nl - start) : end_ - begin_;
      size_t consumed = len + (nl != nullptr ? 1 : 0);
      line->data = start;
      line->size = (len > 0 && start[len - 1] == '\r') ? len - 1 : len;
      line->capacity = buf_.size() - begin_;
      line->offset = consumed_;
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
    scan_from = begin_ + scanned;
  }
}

}  // namespace logtide
