// The live rows of the window log as a window operator restores them: (key, value) pairs in key
// order, read once from a RowSource. A resumed run reads them straight from the state file
// (StateStore's LiveRows); WindowRows holds them in memory for `logtide inspect`, `state export`
// and tests: their bytes in chunks of up to 64 MiB, so that the rows of a large state cost their
// bytes and 16 more each, not two strings and a tree node. Rows are read as pairs of
// string_views into the chunks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace logtide {

// Rows read once, in key order (a window operator's Restore).
class RowSource {
 public:
  using Row = std::pair<std::string_view, std::string_view>;
  // The next row, valid until the next call; false at the end. A source that fails (a damaged
  // file) ends early and says why itself.
  virtual bool Next(Row* row) = 0;

 protected:
  ~RowSource() = default;
};

class WindowRows {
 public:
  using Row = std::pair<std::string_view, std::string_view>;

  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Row;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Row;
    Iterator(const WindowRows* rows, size_t i) : rows_(rows), i_(i) {}
    Row operator*() const { return (*rows_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const Iterator& o) const { return i_ == o.i_; }
    bool operator!=(const Iterator& o) const { return i_ != o.i_; }

   private:
    const WindowRows* rows_;
    size_t i_;
  };

  WindowRows() = default;
  WindowRows(WindowRows&&) = default;
  WindowRows& operator=(WindowRows&&) = default;
  // The pairs of [first, last) (each with .first and .second viewable as strings), in order.
  template <typename It>
  WindowRows(It first, It last) {
    assign(first, last);
  }
  template <typename It>
  void assign(It first, It last) {
    clear();
    for (; first != last; ++first) Add(first->first, first->second);
  }

  // Appends a row. The rows are in the order they were added: the store adds them by key.
  void Add(std::string_view key, std::string_view value) {
    const size_t n = key.size() + value.size();
    if (chunks_.empty() || chunks_.back().size() + n > chunks_.back().capacity()) {
      const size_t last = chunks_.empty() ? kFirstChunk / 2 : chunks_.back().capacity();
      chunks_.emplace_back();
      chunks_.back().reserve(std::max(n, std::min(2 * last, kLargestChunk)));
    }
    std::string& c = chunks_.back();
    rows_.push_back({static_cast<uint32_t>(chunks_.size() - 1), static_cast<uint32_t>(c.size()),
                     static_cast<uint32_t>(key.size()), static_cast<uint32_t>(value.size())});
    c.append(key);
    c.append(value);
  }

  // The rows, from the first, as a RowSource. REQUIRES: `rows` outlives it.
  class Reader final : public RowSource {
   public:
    explicit Reader(const WindowRows& rows) : rows_(rows) {}
    bool Next(Row* row) override {
      if (i_ == rows_.size()) return false;
      *row = rows_[i_++];
      return true;
    }

   private:
    const WindowRows& rows_;
    size_t i_ = 0;
  };

  void clear() {
    rows_.clear();
    chunks_.clear();
  }
  size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  Row operator[](size_t i) const {
    const Entry& e = rows_[i];
    const std::string_view all(chunks_[e.chunk]);
    return {all.substr(e.at, e.key_size), all.substr(e.at + e.key_size, e.value_size)};
  }
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, rows_.size()); }

  // Row by row, whatever the buffers hold besides.
  bool operator==(const WindowRows& o) const {
    if (size() != o.size()) return false;
    for (size_t i = 0; i < size(); ++i) {
      if ((*this)[i] != o[i]) return false;
    }
    return true;
  }
  template <typename Pairs>
  bool operator==(const Pairs& pairs) const {
    if (size() != pairs.size()) return false;
    size_t i = 0;
    for (const auto& [k, v] : pairs) {
      if ((*this)[i++] != Row(k, v)) return false;
    }
    return true;
  }

 private:
  // Chunks double from 64 KiB to 64 MiB: a small state takes little, and a large one's chunks
  // are mapped pages of their own (above malloc's largest mmap threshold, 32 MiB).
  static constexpr size_t kFirstChunk = size_t{64} << 10;
  static constexpr size_t kLargestChunk = size_t{64} << 20;
  struct Entry {
    uint32_t chunk;  // the row's key and then its value are at `at` in chunks_[chunk]
    uint32_t at;
    uint32_t key_size;
    uint32_t value_size;
  };
  std::vector<Entry> rows_;
  // The rows' bytes in the order they were added, in chunks (kFirstChunk...).
  std::vector<std::string> chunks_;
};

}  // namespace logtide
