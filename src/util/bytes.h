// Little-endian byte encoding for persisted state: fixed-width integers, doubles, 128-bit
// integers and length-prefixed byte strings. ByteReader never reads past its end: a short or
// damaged input turns ok() false and every later read returns zero values.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace logtide {

class ByteWriter {
 public:
  explicit ByteWriter(std::string* out) : out_(out) {}
  void U8(uint8_t v) { out_->push_back(static_cast<char>(v)); }
  void U32(uint32_t v) { Raw(&v, 4); }
  void I64(int64_t v) { Raw(&v, 8); }
  void U64(uint64_t v) { Raw(&v, 8); }
  void F64(double v) { Raw(&v, 8); }
  void I128(__int128 v) { Raw(&v, 16); }
  void Bytes(std::string_view s) {
    U32(static_cast<uint32_t>(s.size()));
    out_->append(s);
  }
  // LEB128: seven bits a byte, low first; small numbers take one byte.
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      U8(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    U8(static_cast<uint8_t>(v));
  }

 private:
  void Raw(const void* p, size_t n) { out_->append(static_cast<const char*>(p), n); }
  std::string* out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  bool at_end() const { return in_.empty(); }
  uint8_t U8() {
    uint8_t v = 0;
    Raw(&v, 1);
    return v;
  }
  uint32_t U32() {
    uint32_t v = 0;
    Raw(&v, 4);
    return v;
  }
  int64_t I64() {
    int64_t v = 0;
    Raw(&v, 8);
    return v;
  }
  uint64_t U64() {
    uint64_t v = 0;
    Raw(&v, 8);
    return v;
  }
  double F64() {
    double v = 0;
    Raw(&v, 8);
    return v;
  }
  __int128 I128() {
    __int128 v = 0;
    Raw(&v, 16);
    return v;
  }
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const uint8_t b = U8();
      if (!ok_) return 0;
      // The tenth byte may only hold the top bit of 64.
      if (shift == 63 && b > 1) break;
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return v;
    }
    ok_ = false;
    return 0;
  }
  // Marks the input as damaged: a reader's checks of what it read fail through here.
  void Fail() { ok_ = false; }
  std::string_view Bytes() {
    const uint32_t n = U32();
    return ok_ ? Take(n) : std::string_view();
  }
  // The next n bytes as they are.
  std::string_view Take(size_t n) {
    if (!ok_ || n > in_.size()) {
      ok_ = false;
      return {};
    }
    std::string_view s = in_.substr(0, n);
    in_.remove_prefix(n);
    return s;
  }
  size_t remaining() const { return in_.size(); }

 private:
  void Raw(void* p, size_t n) {
    if (!ok_ || in_.size() < n) {
      ok_ = false;
      return;
    }
    std::memcpy(p, in_.data(), n);
    in_.remove_prefix(n);
  }
  std::string_view in_;
  bool ok_ = true;
};

}  // namespace logtide
