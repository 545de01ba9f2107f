// The structural index of a run of NDJSON lines: simdjson's stage 1 (SIMD classification of
// every byte, UTF-8 validation, string boundaries) run once over many lines, giving the position
// of every token ({ } [ ] : , and the first byte of each string, number and atom).
// FieldExtractor walks a line's tokens from it. One pass over a block of lines costs about 40%
// of one pass per line (0.10 s against 0.24-0.27 s over 1 GB: per-call set-up and the padded
// copy of each line's last bytes).
//
// A run that holds a string broken by a newline, a control character in a string or invalid
// UTF-8 anywhere fails to index as a whole; its lines are then indexed one by one, so one bad
// line costs speed for its block, never the other lines' results.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace simdjson::internal {
class dom_parser_implementation;
}

namespace logtide {

class StructuralIndex {
 public:
  StructuralIndex();
  ~StructuralIndex();
  StructuralIndex(const StructuralIndex&) = delete;
  StructuralIndex& operator=(const StructuralIndex&) = delete;

  // Indexes the `size` bytes at `data` and returns true; on failure (see above), or for a run
  // too large to index, returns false and covers nothing. The bytes must stay unchanged while
  // lines are extracted with this index.
  // REQUIRES: data holds whole lines (or one line); kPadding bytes are readable past the end.
  bool Build(const char* data, size_t size);

  // Sets the run of whole lines that Find() indexes piece by piece, as its lines come. Pieces
  // of about kPiece bytes keep the lines and their tokens in the CPU's cache between stage 1
  // and the walk over them. The bytes must stay unchanged until the next SetRun().
  // REQUIRES: as for Build().
  void SetRun(const char* data, size_t size) {
    run_ = data;
    run_end_ = data + size;
    failed_end_ = data;
    size_ = 0;
  }
  static constexpr size_t kPiece = 64 * 1024;
  // The deepest nesting of objects and arrays a line may have, as simdjson's DOM parser
  // (JsonChecker) allows.
  static constexpr size_t kMaxDepth = 1024;

  // Returns true when the tokens of the line [line, line + size) are indexed: already, or by
  // indexing the next piece of the run that holds it. False for a line outside the run, or in
  // a piece that failed to index (index such a line alone, with Build).
  bool Find(const char* line, size_t size);

  // Returns true when the line [line, line + size) lies inside the indexed bytes.
  bool Covers(const char* line, size_t size) const {
    return size_ != 0 && line >= data_ && line + size <= data_ + size_;
  }

  const char* data() const { return data_; }
  const uint32_t* tokens() const { return tokens_; }  // offsets from data(), increasing
  uint32_t count() const { return count_; }

  // The first token not before offset `at`, found from the last one returned (lines are
  // extracted in order, so this is usually where the previous line's walk stopped).
  uint32_t Seek(uint32_t at) {
    if (cursor_ > count_ || (cursor_ > 0 && tokens_[cursor_ - 1] >= at)) cursor_ = 0;
    while (cursor_ < count_ && tokens_[cursor_] < at) ++cursor_;
    return cursor_;
  }
  void set_cursor(uint32_t k) { cursor_ = k; }

  // Unescapes the JSON string whose first byte (after the opening quote) is at `src` into
  // `dst` and returns the end of what it wrote, or nullptr for a bad escape.
  // REQUIRES: dst has room for the string's bytes plus kPadding.
  uint8_t* Unescape(const uint8_t* src, uint8_t* dst) const;

 private:
  std::unique_ptr<simdjson::internal::dom_parser_implementation> stage1_;
  const char* run_ = nullptr;
  const char* run_end_ = nullptr;
  const char* failed_end_ = nullptr;  // the end of the last piece that failed to index
  const char* data_ = nullptr;
  size_t size_ = 0;
  const uint32_t* tokens_ = nullptr;
  uint32_t count_ = 0;
  uint32_t cursor_ = 0;
};

}  // namespace logtide
