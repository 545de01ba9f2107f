#include "json/structural_index.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>

// The internal API below is the one of simdjson 3.0.1 (CMakeLists.txt checks the same).
static_assert(simdjson::SIMDJSON_VERSION_MAJOR == 3 && simdjson::SIMDJSON_VERSION_MINOR == 0 &&
                  simdjson::SIMDJSON_VERSION_REVISION == 1,
              "logtide's StructuralIndex is written against simdjson 3.0.1's internal stage-1 API "
              "(dom_parser_implementation); port it before building with another simdjson");

namespace logtide {

namespace {

// simdjson's stage 1 is part of its internal parser API (`dom_parser_implementation`, marked
// "@private" in simdjson.h), which the Debian package ships in its public header. logtide is
// written against simdjson 3.0.1; tests/json cover what it relies on: the tokens' positions,
// the errors stage 1 reports and string unescaping.
constexpr size_t kInitialCapacity = 64 * 1024;

}  // namespace

StructuralIndex::StructuralIndex() {
  if (simdjson::get_active_implementation()->create_dom_parser_implementation(
          kInitialCapacity, kMaxDepth, stage1_) != simdjson::SUCCESS)
    stage1_.reset();
}

StructuralIndex::~StructuralIndex() = default;

bool StructuralIndex::Build(const char* data, size_t size) {
  size_ = 0;
  cursor_ = 0;
  if (stage1_ == nullptr || size == 0 || size >= simdjson::SIMDJSON_MAXSIZE_BYTES) return false;
  if (size >= stage1_->capacity()) {
    const size_t cap = std::min<size_t>(std::max(size + 1, 2 * stage1_->capacity()),
                                        simdjson::SIMDJSON_MAXSIZE_BYTES);
    if (stage1_->set_capacity(cap) != simdjson::SUCCESS) {
      stage1_.reset();  // its arrays may be gone; make a new one at the next Build
      if (simdjson::get_active_implementation()->create_dom_parser_implementation(
              kInitialCapacity, kMaxDepth, stage1_) != simdjson::SUCCESS)
        stage1_.reset();
      return false;
    }
  }
  if (stage1_->stage1(reinterpret_cast<const uint8_t*>(data), size,
                      simdjson::stage1_mode::regular) != simdjson::SUCCESS)
    return false;
  data_ = data;
  size_ = size;
  tokens_ = stage1_->structural_indexes.get();
  count_ = stage1_->n_structural_indexes;
  return true;
}

bool StructuralIndex::Find(const char* line, size_t size) {
  if (Covers(line, size)) return true;
  if (line < run_ || line + size > run_end_ || line < failed_end_) return false;
  // The next piece: from this line to the last line end within kPiece bytes, or to the end of
  // this line when it is longer.
  const char* end = run_end_;
  const char* after = line + size;  // the line's '\r' or '\n', or the run's end
  if (static_cast<size_t>(run_end_ - line) > kPiece) {
    const void* nl = nullptr;
    if (size < kPiece) nl = memrchr(after, '\n', static_cast<size_t>(line + kPiece - after));
    if (nl == nullptr) nl = std::memchr(after, '\n', static_cast<size_t>(run_end_ - after));
    end = nl != nullptr ? static_cast<const char*>(nl) + 1 : run_end_;
  }
  if (Build(line, static_cast<size_t>(end - line))) return true;
  failed_end_ = end;
  return false;
}

uint8_t* StructuralIndex::Unescape(const uint8_t* src, uint8_t* dst) const {
  if (stage1_ == nullptr) return nullptr;
  return stage1_->parse_string(src, dst);
}

}  // namespace logtide
