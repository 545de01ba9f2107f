// The live rows of the window log, as a resumed run restores them: (key, value) pairs sorted by
// key, their bytes in one buffer, so that the rows of a large state cost their bytes and 16
// more each, not two strings and a tree node (a state with 10 million open windows is
// restored beside them). Rows are read as pairs of string_views into that buffer.
#pragma once

#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace logtide {

class WindowRows {
 public:
  using Row = std::pair<std::string_view, std::string_view>;

  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
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
    rows_.push_back({bytes_.size(), static_cast<uint32_t>(key.size()),
                     static_cast<uint32_t>(value.size())});
    bytes_.append(key);
    bytes_.append(value);
  }
  // A row whose key and value are already in the buffer at `at` (the store's replay keeps the
  // log's bytes and takes the live rows from them).
  void AddHeld(uint64_t at, uint32_t key_size, uint32_t value_size) {
    rows_.push_back({at, key_size, value_size});
  }
  // The buffer, for a store that fills it before adding rows with AddHeld.
  std::string* bytes() { return &bytes_; }

  void clear() {
    rows_.clear();
    bytes_.clear();
  }
  size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  Row operator[](size_t i) const {
    const Entry& e = rows_[i];
    const std::string_view all(bytes_);
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
  struct Entry {
    uint64_t at;  // the key's first byte in bytes_; the value follows it
    uint32_t key_size;
    uint32_t value_size;
  };
  std::string bytes_;
  std::vector<Entry> rows_;
};

}  // namespace logtide
