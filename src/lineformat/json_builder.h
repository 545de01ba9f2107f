// Writing one line's JSON object into a buffer reused from line to line: the text a converted
// logfmt, CSV or TSV line hands to json/'s extractor, with the padding it reads past the end.
// No allocation once the buffer has grown to the longest line's size.
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>
#include <vector>

#include "json/padding.h"
#include "lineformat/scan.h"

namespace logtide {

// Returns true when `s` is a number as JSON writes one (RFC 8259: -?(0|[1-9][0-9]*)(.[0-9]+)?
// ([eE][+-]?[0-9]+)?): "12", "-0.5", "1e3"; not "012", "+1", ".5", "1.", "0x1F", "NaN", "".
bool IsJsonNumber(std::string_view s);

class JsonBuilder {
 public:
  // Starts a new object. `bound`: at most this many bytes are written before Finish (the
  // callers bound them by their input's size); the buffer grows to it plus kJsonPadding.
  void Begin(size_t bound) {
    const size_t need = bound + 2 + kJsonPadding;
    if (buf_.size() < need) buf_.resize(need < 2 * buf_.size() ? 2 * buf_.size() : need);
    p_ = buf_.data();
    *p_++ = '{';
    first_ = true;
  }
  // Writes the separator before a member (none before the first).
  void Comma() {
    if (!first_) *p_++ = ',';
    first_ = false;
  }
  // Writes `s` as the body of a JSON string (no quotes): '"', '\' and control characters
  // escaped, every other byte as it is (UTF-8 is checked by json/ when it reads the object).
  // At most 6 bytes per byte of `s`.
  void Escaped(std::string_view s) {
    const size_t n = s.size();
    for (size_t i = 0;;) {
      const size_t j = scan::Find(
          s.data(), i, n,
          [](uint64_t v) {
            return scan::Below(v, 0x20) | scan::Equal(v, '"') | scan::Equal(v, '\\');
          },
          [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == '"' || c == '\\'; });
      std::memcpy(p_, s.data() + i, j - i);
      p_ += j - i;
      if (j == n) return;
      EscapeOne(static_cast<unsigned char>(s[j]));
      i = j + 1;
    }
  }
  // Writes `s` as a JSON string, quotes included (at most 6 * size + 2 bytes).
  void String(std::string_view s) {
    *p_++ = '"';
    Escaped(s);
    *p_++ = '"';
  }
  // Writes `s` as a JSON number when IsJsonNumber(s), else as a string.
  void Scalar(std::string_view s) {
    if (IsJsonNumber(s)) {
      Raw(s);
    } else {
      String(s);
    }
  }
  // Writes bytes that are JSON text already.
  void Raw(std::string_view s) {
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
  }
  void Char(char c) { *p_++ = c; }
  // Ends the object. Returns it; valid until the next Begin. kJsonPadding bytes are readable
  // past its end.
  std::string_view Finish() {
    *p_++ = '}';
    return std::string_view(buf_.data(), static_cast<size_t>(p_ - buf_.data()));
  }
  // The readable bytes from the start of the object Finish returned.
  size_t capacity() const { return buf_.size(); }

 private:
  void EscapeOne(unsigned char u);
  std::vector<char> buf_;
  char* p_ = nullptr;
  bool first_ = true;
};

}  // namespace logtide
