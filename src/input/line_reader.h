// Reading one input (a file or stdin) as lines, in large buffers, with the exact byte offset
// and number of every line. A final line without '\n' is returned, flagged as unterminated.
// Each line is readable for LineReader::kPadding bytes past its end, as simdjson requires.
// A gzip or zstd input is decompressed as it is read (byte_source.h): offsets, sizes and
// everything else here count its decompressed bytes. A line longer than the reader's limit
// (set_max_line_length) is not held: its first bytes are returned, flagged as too long, and the
// rest is read and dropped as it comes, so that memory stays bounded by the limit whatever the
// input holds.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "input/byte_source.h"
#include "input/compressed_check.h"
#include "input/file_follower.h"
#include "input/line.h"
#include "input/line_limits.h"
#include "util/status.h"

struct XXH64_state_s;

namespace logtide {

class LineReader {
 public:
  // Opens `path`; "-" is standard input. `buffer_size` is the initial read size; a longer line
  // grows the buffer. Results never depend on the buffer size.
  static Status Open(const std::string& path, size_t buffer_size, std::unique_ptr<LineReader>* out);
  // Returns a reader for the file named `path` that is gone (a rotation removed it after the
  // shell's glob named it): a regular file of no bytes, at its end, with no device or inode,
  // that reads nothing (ReadAt fails).
  static std::unique_ptr<LineReader> Vanished(const std::string& path);
  ~LineReader();

  // Continues from byte `offset`, which starts line `line` + 1. Plain files seek; standard
  // input and compressed files read (decompress) and discard the bytes, passing them to
  // `skipped` (for a hash) first. When the input ends before `offset`, returns Refused and sets
  // *reached (when given) to the bytes it has.
  // REQUIRES: no line was read yet.
  Status SkipTo(uint64_t offset, uint64_t line,
                const std::function<void(std::string_view)>& skipped,
                uint64_t* reached = nullptr);
  // A compressed file is decompressed once in full, from a descriptor of its own and on a
  // thread of its own started when its bytes are first read, to check it (compressed_check.h):
  // damage that still decodes is only found by the check at the end of its gzip member or zstd
  // frame. Waits for that check and
  // returns its error (Ok for anything else, and for a file none of whose bytes were read yet).
  // Whatever bytes of the file were used must not reach an output or a checkpoint before this
  // returned Ok. Thread-safe.
  Status WaitVerified();

  // Takes the input as read to its end at byte `offset` (line `line`), reading nothing: for a
  // compressed generation of a rotated log that an earlier run read to its end, which would
  // otherwise be decompressed again at every run.
  // REQUIRES: no line was read yet.
  void SetAtEnd(uint64_t offset, uint64_t line);
  // Goes back to the start of a file, to read it again from its first line (undoing SetAtEnd).
  Status Rewind();
  // Reads up to n bytes at `offset` of a regular file (not the stream position). A compressed
  // file is decompressed from its start to there: cheap only near the start.
  Status ReadAt(uint64_t offset, size_t n, std::string* out) const;
  bool is_stdin() const { return !owns_fd_; }
  bool is_regular() const { return regular_; }
  // True when the input is gzip or zstd (known from opening for a regular file; from the first
  // read for standard input and pipes).
  bool compressed() const { return src_->compression() != Compression::kNone; }

  // Makes a read that a signal interrupts return (with interrupted() set) when *flag is non-zero,
  // instead of reading on. For a clean stop while waiting on a quiet pipe.
  void set_stop_flag(const volatile int* flag) { stop_ = flag; }
  bool interrupted() const { return interrupted_; }
  // Makes Next() on a pipe, a terminal or a followed file return while no input comes, with no
  // line and pending() set: first after about 10 ms of waiting, then every 100 ms, until some
  // comes. The caller does its periodic work (the engine's tick) and calls Next again, which
  // goes on where it stopped; StopWaiting() first when it turns to other work instead, so the
  // next wait starts with the short one again. Without it, Next waits as long as it takes.
  void set_return_while_waiting(bool on) { return_while_waiting_ = on; }
  bool pending() const { return pending_; }
  void StopWaiting() {
    waited_ = false;
    if (follower_ != nullptr) follower_->ResetWait();
  }
  // Follows a plain regular file as `tail -F` does: at its end Next waits for it to grow
  // (returning while it waits as for a pipe), and returns no end. When the file at its path is another
  // one (a rotation renamed it away, and created a new one), the rest of this one is read,
  // then reading goes on with the new file from its start (offsets and line numbers start
  // again). When the file shrinks below what was read (truncated in place), it is read again
  // from its start, after `warn` says so. Not for compressed files or standard input.
  // `on_switch` is called before the switch, with the old file still open (file_follower.h).
  void set_follow(std::function<void(const std::string&)> warn,
                  std::function<void()> on_switch = nullptr) {
    follower_ = std::make_unique<FileFollower>(name_, std::move(warn), std::move(on_switch));
  }
  bool following() const { return follower_ != nullptr; }
  // Whether Next would return without waiting for input to arrive (a line, or the end, is
  // there; or a pipe has bytes to read). Files always are.
  bool Ready();

  // The longest line, in bytes (without the '\n' and a trailing '\r'), that is returned
  // whole; a longer one is returned too_long (Line), and what it holds past its first bytes is
  // dropped as it is read. kDefaultMaxLineLength unless set.
  // REQUIRES: n >= 1; no line was read yet.
  void set_max_line_length(size_t n) { max_line_ = n; }
  size_t max_line_length() const { return max_line_; }
  // 16 MiB: more than real log lines hold (Filebeat cuts lines at 10 MiB by default), little
  // beside the memory a run takes anyway.
  static constexpr size_t kDefaultMaxLineLength = logtide::kDefaultMaxLineLength;
  // The first bytes of a too long line that are kept and returned: enough to see what it was.
  static constexpr size_t kLongLinePrefix = 1024;
  // The bytes a too long line returns under a limit of `max_line` bytes.
  static size_t LongLinePrefix(size_t max_line) { return std::min(max_line, kLongLinePrefix); }
  // The last bytes of a dropped line that are kept (Line::tail).
  static constexpr size_t kDroppedTail = 64;
  // Makes the reader hash every byte it reads, in order (SkipTo's too), so that a dropped line
  // gives the hash of the input up to its end (Line::hash_after): for a checkpoint that keeps a
  // hash of all bytes consumed (standard input). REQUIRES: nothing was read yet.
  void set_hash_bytes(bool on);

  // Sets *line to the next line and returns true, or returns false at the end of input.
  // The line stays valid until the next call. Read errors are returned as IOError.
  Status Next(Line* line, bool* have);

  // Reads the next block of whole lines into *block (resized as needed, kPadding readable past
  // the end): about `target` bytes of regular files; of a pipe, what has arrived, once it holds
  // a whole line. A longer line grows the block, up to the limit (set_max_line_length): a line
  // longer than that is a block of its own, with *long_line set, holding its first bytes (as
  // Line::too_long); the rest of it is dropped as it is read. Lines up to the limit may be held
  // whole though longer than it (those of a block larger than the limit): the caller checks
  // their length. At the end of input, a last line without '\n' ends the block. Sets *size to
  // the bytes in *block (0 at the end of input) and *offset to the input offset of the block's
  // first byte. A read from a pipe waits in steps of 100 ms and returns with *size 0 and
  // *cancelled set once *cancel is true. For reading on another thread than Next(), which must
  // not be mixed in.
  Status ReadBlock(size_t target, std::vector<char>* block, size_t* size, uint64_t* offset,
                   LongLine* long_line, const std::atomic<bool>& cancel, bool* cancelled);

  // The name used in messages: the path, or "<stdin>".
  const std::string& name() const { return name_; }
  uint64_t bytes_consumed() const { return consumed_; }
  // Under set_follow: the bytes consumed of the files read before the current one.
  uint64_t earlier_files_bytes() const { return earlier_files_; }
  // Lines returned by Next() (or skipped by SkipTo); ReadBlock() does not count lines.
  uint64_t lines_read() const { return line_number_; }
  // The size of a regular file when opened (compressed: of the file, not of its decompressed
  // bytes); 0 for anything else (stdin, a pipe).
  uint64_t file_size() const { return file_size_; }
  // Takes file_size() again from the file (a copy still being written when it was opened).
  void RefreshSize();
  // Device and inode of the input (0 for standard input).
  uint64_t dev() const { return dev_; }
  uint64_t ino() const { return ino_; }
  // Bytes readable past the end of every line: what a JSON parser reading in wide loads
  // needs (the engine checks that it is json/extractor.h's).
  static constexpr size_t kPadding = 64;

 private:
  LineReader(int fd, bool owns, std::string name, size_t buffer_size);
  // Reads more input after the unconsumed bytes, moving them to the front and growing the
  // buffer when full. Sets eof_ at end of input.
  Status Fill();
  // Reads into dst from the source, again after a signal unless it is a stop (interrupted_
  // set) or `retry_signals`, and after a read of compressed bytes that made none yet unless
  // `once`. *got is 0 at the end of input or when stopped.
  Status ReadSome(char* dst, size_t n, size_t* got, bool once);
  // Allocates the buffer at its first use.
  void EnsureBuffer();

  std::unique_ptr<ByteSource> src_;
  int fd_;
  bool owns_fd_;
  bool regular_ = false;
  std::string name_;
  std::vector<char> buf_;  // size: capacity_ + kPadding, once used
  size_t capacity_;
  size_t begin_ = 0;  // first unconsumed byte
  size_t end_ = 0;    // end of valid bytes
  bool eof_ = false;
  size_t max_line_ = kDefaultMaxLineLength;
  // The line at begin_ is longer than max_line_: buf_ holds its first bytes (LongLinePrefix)
  // and what was read after them; dropped_ counts the bytes after those, up to what is in
  // buf_, and last_dropped_ is the last of them (a '\r' before the '\n' is not the line's).
  bool dropping_ = false;
  uint64_t dropped_ = 0;
  char last_dropped_ = 0;
  std::string dropped_tail_;  // the last bytes of the line being dropped (Line::tail)
  // set_hash_bytes: every byte returned or skipped so far, in order.
  std::shared_ptr<XXH64_state_s> hash_;
  // Adds the bytes of a line being dropped to hash_ and dropped_tail_.
  void NoteDropped(const char* data, size_t n, std::string* tail);
  bool new_run_ = true;  // the buffer changed since the last line returned
  uint64_t consumed_ = 0;  // input offset of buf_[begin_]
  uint64_t line_number_ = 0;
  uint64_t file_size_ = 0;
  uint64_t dev_ = 0;
  uint64_t ino_ = 0;
  const volatile int* stop_ = nullptr;
  bool interrupted_ = false;
  bool at_end_set_ = false;  // SetAtEnd: nothing is read
  bool return_while_waiting_ = false;
  bool pending_ = false;   // Next returned while waiting
  bool waited_ = false;    // WaitReadable returned while waiting: the next wait is the long one
  std::unique_ptr<FileFollower> follower_;  // set_follow
  bool switch_pending_ = false;  // a rotated file's last bytes are being returned
  uint64_t earlier_files_ = 0;
  // The followed file as it is open now.
  FollowedFile Followed() const { return FollowedFile{fd_, src_->position(), dev_, ino_}; }
  // Continues with the file now at the path, from its start.
  Status SwitchFile();
  // Fill's end of a followed file: waits, then reads on, again from the start, or switches.
  Status FollowAtEnd();
  // Before a read of a pipe that would block: waits for input. Returns false when a stop
  // signal came meanwhile (interrupted_ is then set) or it returned while waiting (pending_
  // set).
  bool WaitReadable();
  // The check of a compressed file (WaitVerified), started when its bytes are first read:
  // files taken as at their end (SetAtEnd), or opened only to look at their first bytes, are
  // not checked.
  void StartVerify();
  CompressedCheck check_;
};

}  // namespace logtide
