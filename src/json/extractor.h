// Field extraction: walks one NDJSON line's tokens (json/structural_index.h) once, checking the
// object's structure and picking out the registered dotted paths ("req.method") as values.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "json/json_checker.h"  // JsonChecker, for the includers of this header before it moved
#include "json/padding.h"
#include "json/structural_index.h"
#include "json/value.h"
#include "util/status.h"

namespace simdjson::dom {
class parser;
}

namespace logtide {

class FieldExtractor {
 public:
  FieldExtractor();
  ~FieldExtractor();
  FieldExtractor(const FieldExtractor&) = delete;
  FieldExtractor& operator=(const FieldExtractor&) = delete;

  // Registers a dotted path and returns its slot; a path registered twice gets one slot.
  // With keep_number_text, a number found there also carries its source text in ValueRef::s
  // (for exact epoch times). Fails on an empty path or an empty segment ("a..b").
  Status AddPath(std::string_view dotted, int* slot, bool keep_number_text = false);

  // Adds a slot that no path fills: it is always null. (For a caller that wants the values it
  // reads in consecutive slots.)
  void AddPlaceholder(int* slot) {
    *slot = static_cast<int>(paths_.size());
    paths_.emplace_back();
  }

  // Defers reading `slot`'s value: Extract then only notes where the value is, checking no
  // more of it than of a value no path reads (its first byte, an object's brackets), and
  // ExtractRest reads it. So a caller that can decide from a few fields that it needs no more
  // of a line (a filter) does not pay for reading the rest, and a line it drops is not refused
  // for a value it never read. A slot no path fills (AddPlaceholder) is left as it is.
  // REQUIRES: called before Finish.
  void Defer(int slot);

  // Prepares the registered paths for Extract.
  // REQUIRES: called once, after the last AddPath and Defer and before the first Extract.
  Status Finish();

  int num_slots() const { return static_cast<int>(paths_.size()); }
  const std::string& path(int slot) const { return paths_[slot]; }

  // Parses `line` and sets values[slot] for every registered path: null when absent. Strings
  // and raw texts borrow from the line or the extractor and stay valid until the next call
  // (and while the line's bytes do); at least kPadding bytes past each one's end are readable.
  // Fails with a DataError naming the reason when the line is not one JSON object. `index`,
  // when given and covering the line, supplies its tokens; otherwise the line is indexed
  // alone. The result is the same either way.
  // REQUIRES: the `capacity` bytes at `line` are readable, capacity >= size + kPadding.
  Status Extract(const char* line, size_t size, size_t capacity, std::vector<ValueRef>* values,
                 StructuralIndex* index = nullptr);

  // Reads the deferred slots' values of the line the last Extract walked, into the same
  // `values`: the line then reads as one Extract without deferred slots would have read it
  // (a value that is not valid JSON fails here instead, with the same message).
  // REQUIRES: the last Extract succeeded, on this line, and the line's bytes are unchanged.
  Status ExtractRest(const char* line, size_t size, std::vector<ValueRef>* values);

  // Bytes that must be readable past the end of a line (json/padding.h).
  static constexpr size_t kPadding = kJsonPadding;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<std::string> paths_;
};

}  // namespace logtide
