// One line of an input as the readers return it (Line, LongLine), and the one rule that
// splits bytes into lines (EndOfLine), shared by LineReader and the parse pool's workers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

struct XXH64_state_s;

namespace logtide {

struct Line {
  const char* data;  // without the '\n' and without a trailing '\r'
  size_t size;
  size_t capacity;      // readable bytes from data: size + at least LineReader::kPadding
  uint64_t offset;      // byte offset of the line's first byte in the input
  uint64_t end_offset;  // byte offset just past the line and its '\n' (the next line's offset)
  uint64_t number;      // 1-based line number
  bool terminated;      // ended by '\n'
  // Non-zero for the first line of a run: the lines in [data, data + run_size) are in memory
  // now and are the ones the next calls return, before the reader's buffer changes (see
  // json/structural_index.h, which indexes such a run at once).
  size_t run_size;
  // A line longer than the reader's limit: data and size hold only its first bytes (at most
  // LineReader::kLongLinePrefix), full_size is its whole length (without the '\n' and a
  // trailing '\r'). Its offsets and number are exact all the same.
  bool too_long = false;
  uint64_t full_size = 0;  // size, or more for a line that is too_long
  // A too_long line whose bytes past data + size are gone (dropped as they were read): what a
  // checkpoint needs of them was kept instead. `tail`: the line's last bytes (up to
  // LineReader::kDroppedTail, with its '\n'); hash_after, under LineReader::set_hash_bytes: the
  // hash of every byte of the input up to the line's end.
  bool dropped = false;
  std::string_view tail;
  const XXH64_state_s* hash_after = nullptr;
};

// A line longer than the limit, which ReadBlock returns as a block of its own holding the
// line's first bytes.
struct LongLine {
  uint64_t size = 0;      // 0: the block holds whole lines; else the line's whole length
                          // (without the '\n' and a trailing '\r')
  uint64_t consumed = 0;  // the line's bytes up to the next line
  bool terminated = false;
  std::string tail;                           // as Line::tail
  std::shared_ptr<XXH64_state_s> hash_after;  // as Line::hash_after
};

// Where a line starting at `start` ends, given the '\n' that ends it (nullptr: the line runs to
// `end`, the end of input): its length without the '\n' and a trailing '\r', and the bytes to
// the next line. The one rule for splitting lines, shared by LineReader and the worker threads.
struct LineEnd {
  size_t size;
  size_t consumed;
  bool terminated;
};
inline LineEnd EndOfLine(const char* start, const char* newline, const char* end) {
  const size_t len = static_cast<size_t>((newline != nullptr ? newline : end) - start);
  return LineEnd{(len > 0 && start[len - 1] == '\r') ? len - 1 : len,
                 len + (newline != nullptr ? 1 : 0), newline != nullptr};
}

}  // namespace logtide
