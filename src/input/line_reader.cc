#include "input/line_reader.h"

#include <fcntl.h>
#include <poll.h>
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
      capacity_(buffer_size) {
  struct stat st;
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
    regular_ = true;
    file_size_ = static_cast<uint64_t>(st.st_size);
    // A small file gets a small buffer (allocated at the first read): many small inputs must
    // not cost a full buffer each.
    capacity_ = std::min<uint64_t>(capacity_, std::max<uint64_t>(file_size_ + 1, 4096));
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
    EnsureBuffer();
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

void LineReader::EnsureBuffer() {
  if (buf_.size() < capacity_ + kPadding) buf_.resize(capacity_ + kPadding);
}

Status LineReader::Fill() {
  EnsureBuffer();
  new_run_ = true;
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
  EnsureBuffer();
  size_t scan_from = begin_;
  while (true) {
    const char* start = buf_.data() + begin_;
    const char* nl =
        static_cast<const char*>(std::memchr(buf_.data() + scan_from, '\n', end_ - scan_from));
    if (nl != nullptr || (eof_ && end_ > begin_)) {
      const LineEnd e = EndOfLine(start, nl, buf_.data() + end_);
      const size_t consumed = e.consumed;
      line->data = start;
      line->size = e.size;
      line->capacity = buf_.size() - begin_;
      line->offset = consumed_;
      line->end_offset = consumed_ + consumed;
      line->number = ++line_number_;
      line->terminated = e.terminated;
      line->run_size = 0;
      if (new_run_) {
        // The run: up to the last newline, or to the end of input past it.
        const char* last = eof_ ? buf_.data() + end_
                                : static_cast<const char*>(memrchr(start, '\n', end_ - begin_)) + 1;
        line->run_size = static_cast<size_t>(last - start);
        new_run_ = false;
      }
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

Status LineReader::ReadBlock(size_t target, std::vector<char>* block, size_t* size,
                             uint64_t* offset, const std::atomic<bool>& cancel, bool* cancelled) {
  *cancelled = false;
  *offset = consumed_;
  *size = 0;
  // The partial line left by the previous block (or by Next) starts this one.
  size_t have = end_ - begin_;
  if (regular_ && consumed_ + target > file_size_) {
    // Near the end of a file: a block of what is left (a file that grew gets more blocks).
    target = static_cast<size_t>(std::min<uint64_t>(
        target, std::max<uint64_t>(file_size_ - std::min(consumed_, file_size_) + 1,
                                   uint64_t{64} << 10)));
  }
  size_t cap = std::max({target, have + 1, size_t{64}});
  if (block->size() < cap + kPadding) block->resize(cap + kPadding);
  if (have > 0) std::memcpy(block->data(), buf_.data() + begin_, have);
  begin_ = end_ = 0;
  size_t scanned = 0;  // bytes known to hold no '\n'
  while (true) {
    if (have == cap) {  // a line longer than the block
      cap *= 2;
      block->resize(cap + kPadding);
    }
    if (!regular_) {
      // Wait for data without blocking a stop: a quiet pipe must not hold up a cancel.
      struct pollfd pfd = {fd_, POLLIN, 0};
      int r = ::poll(&pfd, 1, 100);
      if (r < 0 && errno != EINTR)
        return Status::IOError(fmt::format("cannot read {}: {}", name_, std::strerror(errno)));
      if (cancel.load(std::memory_order_relaxed)) {
        *cancelled = true;
        return Status::Ok();
      }
      if (r <= 0) continue;
    }
    ssize_t n = ::read(fd_, block->data() + have, cap - have);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IOError(fmt::format("cannot read {}: {}", name_, std::strerror(errno)));
    }
    if (n == 0) eof_ = true;
    have += static_cast<size_t>(n);
    bool full = have == cap;
    if (!eof_ && !full) {
      if (regular_) continue;  // a file: fill the block
      // A pipe: take more only when it is already there.
      struct pollfd pfd = {fd_, POLLIN, 0};
      if (::poll(&pfd, 1, 0) > 0) continue;
    }
    const char* data = block->data();
    const void* nl = have > scanned ? memrchr(data + scanned, '\n', have - scanned) : nullptr;
    if (nl == nullptr && !eof_) {
      scanned = have;
      continue;
    }
    size_t lines = nl != nullptr ? static_cast<size_t>(static_cast<const char*>(nl) - data) + 1
                                 : have;
    if (eof_) lines = have;
    // Keep the partial last line for the next block.
    size_t rest = have - lines;
    if (buf_.size() < rest + kPadding) buf_.resize(rest + kPadding);
    if (rest > 0) std::memcpy(buf_.data(), data + lines, rest);
    end_ = rest;
    *size = lines;
    consumed_ += lines;
    return Status::Ok();
  }
}

}  // namespace logtide
