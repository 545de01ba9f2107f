#include "input/line_reader.h"

#include <fcntl.h>
#include <poll.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>


namespace logtide {


Status LineReader::Open(const std::string& path, size_t buffer_size,
                        std::unique_ptr<LineReader>* out) {
  if (buffer_size < 1) buffer_size = 1;
  if (path == "-") {
    out->reset(new LineReader(STDIN_FILENO, false, "<stdin>", buffer_size));
    return Status::Ok();
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IOError(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  std::unique_ptr<LineReader> r(new LineReader(fd, true, path, buffer_size));
  // A file's format is known from its first bytes now (reading them cannot block); standard
  // input's and a pipe's at the first read.
  if (r->regular_) {
    Status s = r->src_->Detect();
    if (!s.ok()) return s;
  }
  *out = std::move(r);
  return Status::Ok();
}

std::unique_ptr<LineReader> LineReader::Vanished(const std::string& path) {
  std::unique_ptr<LineReader> r(new LineReader(-1, true, path, 1));
  r->regular_ = true;
  r->SetAtEnd(0, 0);
  return r;
}

LineReader::LineReader(int fd, bool owns, std::string name, size_t buffer_size)
    : src_(std::make_unique<ByteSource>(fd, owns, name)),
      fd_(fd),
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

LineReader::~LineReader() = default;  // check_ waits for its thread; src_ closes the file

Status LineReader::ReadSome(char* dst, size_t n, size_t* got, bool stoppable) {
  while (true) {
    Status s = src_->Read(dst, n, got);
    if (!s.ok() || *got > 0 || src_->at_end()) return s;
    if (stoppable && src_->interrupted() && stop_ != nullptr && *stop_ != 0) {
      interrupted_ = true;
      return Status::Ok();
    }
  }
}

Status LineReader::SkipTo(uint64_t offset, uint64_t line,
                          const std::function<void(std::string_view)>& skipped,
                          uint64_t* reached) {
  if (!is_stdin()) {
    Status s = src_->Detect();
    if (!s.ok()) return s;
  }
  if (!is_stdin() && !compressed()) {
    Status s = src_->Seek(offset);
    if (!s.ok()) return s;
  } else {
    // Read and drop: a compressed file is decompressed up to the offset (it cannot seek).
    StartVerify();
    uint64_t left = offset;
    EnsureBuffer();
    while (left > 0) {
      size_t n = 0;
      Status s = ReadSome(buf_.data(), std::min<uint64_t>(left, capacity_), &n, false);
      if (!s.ok()) return s;
      if (n == 0) {
        if (reached != nullptr) *reached = offset - left;
        if (is_stdin()) {
          return Status::Refused(fmt::format(
              "{} has {} bytes, fewer than the {} the state says were already read: it is "
              "another stream",
              name_, offset - left, offset));
        }
        return Status::Refused(fmt::format(
            "{} decompresses to {} bytes, fewer than the {} the state says were already read "
            "from it",
            name_, offset - left, offset));
      }
      skipped(std::string_view(buf_.data(), n));
      if (hash_ != nullptr) XXH64_update(hash_.get(), buf_.data(), n);
      left -= n;
    }
  }
  consumed_ = offset;
  line_number_ = line;
  return Status::Ok();
}

Status LineReader::Rewind() {
  Status s = src_->Rewind();
  if (!s.ok()) return s;
  begin_ = end_ = 0;
  dropping_ = false;
  eof_ = false;
  at_end_set_ = false;
  new_run_ = true;
  consumed_ = 0;
  line_number_ = 0;
  return Status::Ok();
}

Status LineReader::ReadAt(uint64_t offset, size_t n, std::string* out) const {
  return src_->ReadAt(offset, n, out);
}

void LineReader::set_hash_bytes(bool on) {
  hash_.reset();
  if (!on) return;
  hash_ = std::shared_ptr<XXH64_state_s>(XXH64_createState(), XXH64_freeState);
  XXH64_reset(hash_.get(), 0);
}

void LineReader::NoteDropped(const char* data, size_t n, std::string* tail) {
  if (hash_ != nullptr) XXH64_update(hash_.get(), data, n);
  if (n >= kDroppedTail) {
    tail->assign(data + n - kDroppedTail, kDroppedTail);
    return;
  }
  tail->append(data, n);
  if (tail->size() > kDroppedTail) tail->erase(0, tail->size() - kDroppedTail);
}

void LineReader::EnsureBuffer() {
  if (buf_.size() < capacity_ + kPadding) buf_.resize(capacity_ + kPadding);
}

void LineReader::StartVerify() {
  if (regular_ && compressed()) check_.Start(fd_, name_);
}

Status LineReader::WaitVerified() { return check_.Wait(); }

void LineReader::SetAtEnd(uint64_t offset, uint64_t line) {
  consumed_ = offset;
  line_number_ = line;
  at_end_set_ = true;
  eof_ = true;
}

bool LineReader::WaitReadable() {
  while (true) {
    struct pollfd pfd = {fd_, POLLIN, 0};
    const int r = ::poll(&pfd, 1, waited_ ? 90 : 10);
    if (r > 0 || (r < 0 && errno != EINTR)) {  // readable, or the read reports it
      waited_ = false;
      return true;
    }
    if (stop_ != nullptr && *stop_ != 0) {
      interrupted_ = true;
      return false;
    }
    if (r == 0) {
      waited_ = true;
      pending_ = true;
      return false;
    }
  }
}

Status LineReader::Fill() {
  pending_ = false;
  if (at_end_set_) {
    eof_ = true;
    return Status::Ok();
  }
  StartVerify();
  if (return_while_waiting_ && !regular_ && !src_->buffered() && !WaitReadable())
    return Status::Ok();
  EnsureBuffer();
  new_run_ = true;
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == capacity_) {
    // A line longer than the buffer; up to the limit and a '\r', past which it is dropped.
    capacity_ = std::max(capacity_ + 1, std::min(capacity_ * 2, max_line_ + 2));
    buf_.resize(capacity_ + kPadding);
  }
  size_t n = 0;
  Status s = ReadSome(buf_.data() + end_, capacity_ - end_, &n, true);
  if (!s.ok() || interrupted_) return s;
  if (n == 0 && follower_ != nullptr) return FollowAtEnd();
  if (n == 0) eof_ = true;
  end_ += n;
  return Status::Ok();
}

Status LineReader::FollowAtEnd() {
  switch (follower_->WaitForChange(Followed(), stop_, return_while_waiting_)) {
    case FileFollower::Wait::kStopped:
      interrupted_ = true;
      return Status::Ok();
    case FileFollower::Wait::kPending:
      pending_ = true;
      return Status::Ok();
    case FileFollower::Wait::kChanged:
      break;
  }
  switch (follower_->StateOf(Followed())) {
    case FollowState::kTruncated:
      follower_->WarnTruncated(src_->position());
      // What was read past the last whole line is gone with it.
      begin_ = end_ = 0;
      dropping_ = false;
      consumed_ = 0;
      line_number_ = 0;
      new_run_ = true;
      return src_->Seek(0);
    case FollowState::kRotated:
      // Rotated: what this file still holds is read first; a last line without its '\n' is
      // returned as such (nothing more will be written to it), then the new file is opened.
      if (end_ > begin_) {
        eof_ = true;
        switch_pending_ = true;
        return Status::Ok();
      }
      return SwitchFile();
    case FollowState::kGrew:
    case FollowState::kUnchanged:  // changed back since the wait: read again, wait again
      break;
  }
  return src_->Seek(src_->position());  // reads again past the end it saw
}

void LineReader::RefreshSize() {
  struct stat st;
  if (owns_fd_ && ::fstat(fd_, &st) == 0) file_size_ = static_cast<uint64_t>(st.st_size);
}

Status LineReader::SwitchFile() {
  int fd = -1;
  struct stat st;
  Status s = follower_->OpenReplacement(&fd, &st);
  if (!s.ok()) return s;
  follower_->Switching();
  earlier_files_ += consumed_;
  src_ = std::make_unique<ByteSource>(fd, true, name_);
  fd_ = fd;
  dev_ = static_cast<uint64_t>(st.st_dev);
  ino_ = static_cast<uint64_t>(st.st_ino);
  file_size_ = static_cast<uint64_t>(st.st_size);
  s = src_->Seek(0);  // a followed file is plain: no format to detect
  begin_ = end_ = 0;
  dropping_ = false;
  eof_ = false;
  new_run_ = true;
  consumed_ = 0;
  line_number_ = 0;
  return s;
}

bool LineReader::Ready() {
  if (eof_ || at_end_set_ || src_->buffered()) return true;
  if (end_ > begin_ && std::memchr(buf_.data() + begin_, '\n', end_ - begin_) != nullptr)
    return true;
  if (follower_ != nullptr)
    return !src_->at_end() || follower_->StateOf(Followed()) != FollowState::kUnchanged;
  if (regular_) return true;
  struct pollfd pfd = {fd_, POLLIN, 0};
  return ::poll(&pfd, 1, 0) != 0;  // readable, or an error the read reports
}

Status LineReader::Next(Line* line, bool* have) {
  pending_ = false;
  EnsureBuffer();
  const size_t keep = LongLinePrefix(max_line_);
  size_t scan_from = dropping_ ? end_ : begin_;
  while (true) {
    const char* start = buf_.data() + begin_;
    if (dropping_) {
      // The bytes read after the kept ones: up to the line's '\n', they are dropped.
      char* from = buf_.data() + begin_ + keep;
      const size_t n = end_ - begin_ - keep;
      const char* nl = static_cast<const char*>(std::memchr(from, '\n', n));
      const size_t before = nl != nullptr ? static_cast<size_t>(nl - from) : n;
      if (before > 0) last_dropped_ = from[before - 1];
      dropped_ += before;
      NoteDropped(from, before + (nl != nullptr ? 1 : 0), &dropped_tail_);
      if (nl != nullptr || eof_) {
        const uint64_t len = keep + dropped_;  // > keep + 1: last_dropped_ is the line's last
        const uint64_t consumed = len + (nl != nullptr ? 1 : 0);
        line->data = start;
        line->size = keep;
        line->capacity = buf_.size() - begin_;
        line->offset = consumed_;
        line->end_offset = consumed_ + consumed;
        line->number = ++line_number_;
        line->terminated = nl != nullptr;
        line->run_size = 0;
        line->too_long = true;
        line->full_size = last_dropped_ == '\r' ? len - 1 : len;
        line->dropped = true;
        line->tail = dropped_tail_;
        line->hash_after = hash_.get();
        dropping_ = false;
        begin_ = nl != nullptr ? static_cast<size_t>(nl - buf_.data()) + 1 : end_;
        consumed_ += consumed;
        new_run_ = true;  // the next lines were not in a run returned yet
        *have = true;
        return Status::Ok();
      }
      end_ = begin_ + keep;
    } else {
      const char* nl =
          static_cast<const char*>(std::memchr(buf_.data() + scan_from, '\n', end_ - scan_from));
      if (nl != nullptr || (eof_ && end_ > begin_)) {
        const LineEnd e = EndOfLine(start, nl, buf_.data() + end_);
        const size_t consumed = e.consumed;
        line->data = start;
        line->too_long = e.size > max_line_;
        line->size = line->too_long ? keep : e.size;
        line->full_size = e.size;
        line->dropped = false;
        line->capacity = buf_.size() - begin_;
        line->offset = consumed_;
        line->end_offset = consumed_ + consumed;
        line->number = ++line_number_;
        line->terminated = e.terminated;
        line->run_size = 0;
        if (new_run_) {
          // The run: up to the last newline, or to the end of input past it.
          const char* last =
              eof_ ? buf_.data() + end_
                   : static_cast<const char*>(memrchr(start, '\n', end_ - begin_)) + 1;
          line->run_size = static_cast<size_t>(last - start);
          new_run_ = false;
        }
        if (hash_ != nullptr) XXH64_update(hash_.get(), start, consumed);
        begin_ += consumed;
        consumed_ += consumed;
        *have = true;
        return Status::Ok();
      }
      if (end_ - begin_ > max_line_ + 1) {
        // No '\n' yet in more than the limit and a '\r': too long, whatever follows. Its
        // first bytes are kept; the rest, and what comes up to its '\n', is dropped.
        dropping_ = true;
        last_dropped_ = buf_[end_ - 1];
        dropped_ = end_ - begin_ - keep;
        dropped_tail_.clear();
        NoteDropped(start, end_ - begin_, &dropped_tail_);
        end_ = begin_ + keep;
        continue;
      }
    }
    if (eof_ && switch_pending_) {
      switch_pending_ = false;
      Status s = SwitchFile();
      if (!s.ok()) return s;
      scan_from = begin_;
      continue;
    }
    if (eof_) {
      *have = false;
      return Status::Ok();
    }
    size_t scanned = end_ - begin_;
    Status s = Fill();
    if (!s.ok()) return s;
    if (interrupted_ || pending_) {
      *have = false;
      return Status::Ok();
    }
    scan_from = begin_ + scanned;
  }
}

Status LineReader::ReadBlock(size_t target, std::vector<char>* block, size_t* size,
                             uint64_t* offset, LongLine* long_line, const std::atomic<bool>& cancel,
                             bool* cancelled) {
  *cancelled = false;
  *offset = consumed_;
  *size = 0;
  *long_line = LongLine();
  if (at_end_set_) return Status::Ok();
  StartVerify();
  // The partial line left by the previous block (or by Next) starts this one.
  size_t have = end_ - begin_;
  if (regular_ && !compressed() && consumed_ + target > file_size_) {
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
  // A line longer than the limit: its first `keep` bytes stay at the start of the block, what
  // is read after them is dropped up to its '\n'.
  const size_t keep = LongLinePrefix(max_line_);
  bool dropping = false;
  uint64_t line_bytes = 0;  // dropping: the line's bytes so far
  char last = 0;            // and the last of them
  auto drop = [&] {
    dropping = true;
    line_bytes = have;
    last = (*block)[have - 1];
    NoteDropped(block->data(), have, &long_line->tail);
    have = keep;
  };
  // What a long line left over may hold lines; the partial line of a block holds no '\n', and
  // past the limit and a '\r' it is too long.
  if (have > max_line_ + 1 && std::memchr(block->data(), '\n', have) == nullptr) drop();
  while (true) {
    if (have == cap) {  // a line longer than the block, up to the limit and a '\r'
      cap = std::max(cap + 1, std::min(cap * 2, max_line_ + 2));
      block->resize(cap + kPadding);
    }
    if (!regular_ && !src_->buffered()) {
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
    size_t n = 0;
    Status s = src_->Read(block->data() + have, cap - have, &n);
    if (!s.ok()) return s;
    // Nothing yet, but not the end (a signal, or compressed bytes that decoded to nothing yet):
    // a file reads again, a pipe goes on as if nothing had arrived.
    if (n == 0 && !src_->at_end()) {
      if (regular_) continue;
    } else if (n == 0) {
      eof_ = true;
    }
    if (dropping) {
      const char* from = block->data() + have;
      const char* nl = static_cast<const char*>(std::memchr(from, '\n', n));
      const size_t before = nl != nullptr ? static_cast<size_t>(nl - from) : n;
      if (before > 0) last = from[before - 1];
      line_bytes += before;
      NoteDropped(from, before + (nl != nullptr ? 1 : 0), &long_line->tail);
      if (nl == nullptr && !eof_) continue;
      // The line ends: what follows its '\n' starts the next block.
      const size_t rest = nl != nullptr ? n - before - 1 : 0;
      if (buf_.size() < rest + kPadding) buf_.resize(rest + kPadding);
      if (rest > 0) std::memcpy(buf_.data(), nl + 1, rest);
      end_ = rest;
      long_line->size = last == '\r' ? line_bytes - 1 : line_bytes;
      long_line->consumed = line_bytes + (nl != nullptr ? 1 : 0);
      long_line->terminated = nl != nullptr;
      if (hash_ != nullptr) {
        long_line->hash_after =
            std::shared_ptr<XXH64_state_s>(XXH64_createState(), XXH64_freeState);
        XXH64_copyState(long_line->hash_after.get(), hash_.get());
      }
      *size = keep;
      consumed_ += long_line->consumed;
      return Status::Ok();
    }
    have += n;
    bool full = have == cap;
    if (!eof_ && !full) {
      if (regular_) continue;  // a file: fill the block
      // A pipe: take more only when it is already there.
      struct pollfd pfd = {fd_, POLLIN, 0};
      if (src_->buffered() || ::poll(&pfd, 1, 0) > 0) continue;
    }
    const char* data = block->data();
    const void* nl = have > scanned ? memrchr(data + scanned, '\n', have - scanned) : nullptr;
    if (nl == nullptr && !eof_) {
      if (have > max_line_ + 1) {
        drop();
        continue;
      }
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
    if (hash_ != nullptr) XXH64_update(hash_.get(), data, lines);
    consumed_ += lines;
    return Status::Ok();
  }
}

}  // namespace logtide
