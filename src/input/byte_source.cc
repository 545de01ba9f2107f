#include "input/byte_source.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <isa-l/igzip_lib.h>
#include <sys/stat.h>
#include <unistd.h>
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_getFrameHeader, stable since libzstd 1.3
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace logtide {

namespace {

constexpr unsigned char kGzipMagic[] = {0x1f, 0x8b};
constexpr unsigned char kZstdMagic[] = {0x28, 0xb5, 0x2f, 0xfd};
// Compressed bytes read at a time: a pipe gives at most 64 KiB per read(2) anyway, and a file
// 256 KiB, about 1.5 MiB of log lines, takes the decoder a millisecond or so.
constexpr size_t kInSize = 256 << 10;

}  // namespace

const char* CompressionName(Compression c) {
  switch (c) {
    case Compression::kGzip:
      return "gzip";
    case Compression::kZstd:
      return "zstd";
    case Compression::kNone:
      break;
  }
  return "plain";
}

Compression DetectCompression(std::string_view head, bool at_end, bool* decided) {
  bool maybe = false;
  auto test = [&](const unsigned char* magic, size_t size) {
    const size_t k = std::min(size, head.size());
    if (std::memcmp(head.data(), magic, k) != 0) return false;
    if (k == size) return true;
    maybe = true;  // a proper prefix
    return false;
  };
  *decided = true;
  if (test(kGzipMagic, sizeof(kGzipMagic))) return Compression::kGzip;
  if (test(kZstdMagic, sizeof(kZstdMagic))) return Compression::kZstd;
  if (maybe && !at_end) *decided = false;
  return Compression::kNone;
}

// Decodes one compressed format from memory to memory, member after member (frame after frame).
class Decoder {
 public:
  // Why a Step failed.
  struct Failure {
    bool damaged = true;  // the bytes are not valid data of the format; else they are, but
                          // need more than a limit of logtide's, which `what` names
    std::string what;
    std::string fix;  // what the user can do about it, or empty
  };
  virtual ~Decoder() = default;
  // Decodes from [*in, end) into [out, out + n): advances *in past the bytes taken and sets
  // *made. Returns false with *failure saying why when the data cannot be decoded.
  virtual bool Step(const char** in, const char* end, char* out, size_t n, size_t* made,
                    Failure* failure) = 0;
  // True before a member (frame) starts: where the input may end.
  virtual bool between() const = 0;
  // True when a Step with no more input may still make bytes (the last one filled its output).
  virtual bool pending() const = 0;
  // Forgets everything: the next byte starts a member.
  virtual void Reset() = 0;
  static std::unique_ptr<Decoder> For(Compression c);
};

namespace {

// gzip with ISA-L's inflate: the gzip header, trailer and CRC-32 are checked by
// isal_inflate (crc_flag ISAL_GZIP); a finished member is followed by another one, or by zero
// bytes up to the end (padding to a block size), which gzip(1) ignores too.
class GzipDecoder final : public Decoder {
 public:
  GzipDecoder() : st_(std::make_unique<inflate_state>()) { Reset(); }
  void Reset() override {
    StartMember();
    after_member_ = false;
    padding_ = false;
  }
  bool between() const override { return between_; }
  bool pending() const override { return pending_; }
  bool Step(const char** in, const char* end, char* out, size_t n, size_t* made,
            Failure* failure) override {
    *made = 0;
    const size_t avail = static_cast<size_t>(end - *in);
    if (between_ && avail == 0) return true;
    if (between_ && after_member_ && (padding_ || **in == '\0')) {
      // Zero padding: only more zero bytes may follow, up to the end.
      padding_ = true;
      *in = std::find_if(*in, end, [](char c) { return c != '\0'; });
      if (*in == end) return true;
      failure->what =
          "a non-zero byte after the zero bytes that follow the last gzip member (only zero "
          "bytes may pad the end of gzip data; another member may not follow them)";
      return false;
    }
    const uint32_t in_n = static_cast<uint32_t>(std::min<size_t>(avail, UINT32_MAX));
    const uint32_t out_n = static_cast<uint32_t>(std::min<size_t>(n, UINT32_MAX));
    st_->next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(*in));
    st_->avail_in = in_n;
    st_->next_out = reinterpret_cast<uint8_t*>(out);
    st_->avail_out = out_n;
    const int r = isal_inflate(st_.get());
    *made = out_n - st_->avail_out;
    *in += in_n - st_->avail_in;
    if (r < 0) {
      failure->what = Reason(r);
      return false;
    }
    if (in_n != st_->avail_in || *made > 0) between_ = false;
    pending_ = st_->avail_out == 0;
    if (st_->block_state == ISAL_BLOCK_FINISH) {
      // The member is complete and its trailer checked: the next byte starts another, or
      // zero padding.
      StartMember();
      after_member_ = true;
    }
    return true;
  }

 private:
  static std::string Reason(int r) {
    switch (r) {
      case ISAL_INVALID_BLOCK:
        return "invalid deflate block";
      case ISAL_INVALID_SYMBOL:
        return "invalid deflate symbol";
      case ISAL_INVALID_LOOKBACK:
        return "invalid deflate distance";
      case ISAL_INVALID_WRAPPER:
        return "invalid gzip header (after a member, only another gzip member or zero bytes "
               "up to the end may follow)";
      case ISAL_UNSUPPORTED_METHOD:
        return "unsupported gzip compression method";
      case ISAL_INCORRECT_CHECKSUM:
        return "the member's CRC-32 or length does not match its data";
      default:
        return fmt::format("inflate error {}", r);
    }
  }
  // Readies the inflate state for a member's first byte.
  void StartMember() {
    isal_inflate_init(st_.get());
    st_->crc_flag = ISAL_GZIP;
    between_ = true;
    pending_ = false;
  }
  std::unique_ptr<inflate_state> st_;
  bool between_ = true;
  bool pending_ = false;
  bool after_member_ = false;  // a member ended: zero padding may start
  bool padding_ = false;       // in the zero padding after the last member
};

// zstd with libzstd's streaming decoder, which checks each frame's checksum when it has one
// and skips skippable frames. A frame's window (the history its matches may reach back into,
// which the decoder allocates) is limited to 2^kZstdWindowLogMax bytes.
class ZstdDecoder final : public Decoder {
 public:
  ZstdDecoder() : d_(ZSTD_createDCtx()) {
    ZSTD_DCtx_setParameter(d_, ZSTD_d_windowLogMax, kZstdWindowLogMax);
  }
  ~ZstdDecoder() override { ZSTD_freeDCtx(d_); }
  void Reset() override {
    ZSTD_DCtx_reset(d_, ZSTD_reset_session_only);
    between_ = true;
    pending_ = false;
  }
  bool between() const override { return between_; }
  bool pending() const override { return pending_; }
  bool Step(const char** in, const char* end, char* out, size_t n, size_t* made,
            Failure* failure) override {
    *made = 0;
    ZSTD_inBuffer ib = {*in, static_cast<size_t>(end - *in), 0};
    if (between_ && ib.size == 0) return true;
    if (between_) {
      // A frame starts: its header says the window it needs before the decoder allocates it.
      uint64_t window = 0;
      const size_t h = FrameWindow(*in, ib.size, &window);
      if (h > 0) return true;  // the header is not all here yet: wait for more bytes
      if (window > (uint64_t{1} << kZstdWindowLogMax)) {
        WindowTooLarge(window, failure);
        return false;
      }
    }
    ZSTD_outBuffer ob = {out, n, 0};
    const size_t r = ZSTD_decompressStream(d_, &ob, &ib);
    *made = ob.pos;
    *in += ib.pos;
    if (ZSTD_isError(r)) {
      failure->what = ZSTD_getErrorName(r);
      return false;
    }
    between_ = r == 0;  // a frame ended and all of it was written out
    pending_ = ob.pos == ob.size;
    return true;
  }

 private:
  // Reads the window size a frame starting at [p, p + size) declares into *window (0 for a
  // skippable frame or a header that is not valid, which the decoder then reports). Returns
  // the bytes still missing from the header, or 0.
  static size_t FrameWindow(const char* p, size_t size, uint64_t* window) {
    *window = 0;
    ZSTD_frameHeader fh;
    const size_t h = ZSTD_getFrameHeader(&fh, p, size);
    if (!ZSTD_isError(h)) {
      if (h == 0 && fh.frameType == ZSTD_frame) *window = fh.windowSize;
      return h;
    }
    // libzstd refuses a Window_Descriptor above its own maximum (2^31) without saying the
    // size: read it as RFC 8878 3.1.1.1.2 lays it out (after the magic number and the
    // Frame_Header_Descriptor, when the Single_Segment_flag, bit 5, is clear).
    if (ZSTD_getErrorCode(h) == ZSTD_error_frameParameter_windowTooLarge && size >= 6 &&
        (p[4] & 0x20) == 0) {
      const unsigned wd = static_cast<unsigned char>(p[5]);
      const unsigned log = 10 + (wd >> 3);
      const uint64_t base = uint64_t{1} << log;
      *window = base + (base / 8) * (wd & 7);
    }
    return 0;
  }
  // Describes a frame whose window is over the limit.
  static void WindowTooLarge(uint64_t window, Failure* failure) {
    int log = 0;
    while (log < 63 && (uint64_t{1} << log) < window) ++log;
    const std::string size = (uint64_t{1} << log) == window
                                 ? fmt::format("2^{} bytes", log)
                                 : fmt::format("{} bytes (over 2^{})", window, log - 1);
    failure->damaged = false;
    failure->what = fmt::format(
        "a zstd frame needs a window of {}, more than the 2^{} bytes (1 GiB) logtide accepts "
        "(files written with zstd --long=N are read up to N={})",
        size, kZstdWindowLogMax, kZstdWindowLogMax);
    static_assert(kZstdWindowLogMax == 30, "the message says 1 GiB");
    failure->fix = fmt::format("decompress it with `zstd -dc --long={}` and pipe that to logtide",
                               std::min(std::max(log, kZstdWindowLogMax + 1), ZSTD_WINDOWLOG_MAX));
  }

 private:
  ZSTD_DCtx* d_;
  bool between_ = true;
  bool pending_ = false;
};

}  // namespace

std::unique_ptr<Decoder> Decoder::For(Compression c) {
  if (c == Compression::kGzip) return std::make_unique<GzipDecoder>();
  if (c == Compression::kZstd) return std::make_unique<ZstdDecoder>();
  return nullptr;
}

namespace {

// Returns what a failed Step says before the offsets: "damaged FORMAT data: why", or the
// limit that valid data exceeds.
std::string FailureText(Compression c, const Decoder::Failure& f) {
  if (!f.damaged) return f.what;
  return fmt::format("damaged {} data: {}", CompressionName(c), f.what);
}

// Returns what goes after the offsets: "; FIX", or nothing.
std::string FixText(const Decoder::Failure& f) { return f.fix.empty() ? "" : "; " + f.fix; }

}  // namespace

ByteSource::ByteSource(int fd, bool owns, std::string name)
    : fd_(fd), owns_(owns), name_(std::move(name)) {
  struct stat st;
  seekable_ = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
}

ByteSource::~ByteSource() {
  if (owns_ && fd_ >= 0) ::close(fd_);
}

bool ByteSource::buffered() const {
  if (format_ == Compression::kNone) return head_taken_ < head_size_;
  return in_pos_ < in_end_ || (decoder_ != nullptr && decoder_->pending());
}

Status ByteSource::Peek() {
  const ssize_t r = ::read(fd_, head_ + head_size_, sizeof(head_) - head_size_);
  if (r < 0) {
    if (errno == EINTR) {
      interrupted_ = true;
      return Status::Ok();
    }
    return Status::IOError(fmt::format("cannot read {}: {}", name_, std::strerror(errno)));
  }
  if (r == 0) raw_end_ = true;
  head_size_ += static_cast<size_t>(r);
  bool decided = false;
  format_ = DetectCompression(std::string_view(head_, head_size_), raw_end_, &decided);
  if (!decided) return Status::Ok();
  detected_ = true;
  if (format_ != Compression::kNone) StartDecoder();
  return Status::Ok();
}

Status ByteSource::Detect() {
  while (!detected_) {
    interrupted_ = false;
    Status s = Peek();
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

void ByteSource::StartDecoder() {
  decoder_ = Decoder::For(format_);
  in_ = std::make_unique<char[]>(kInSize);
  std::memcpy(in_.get(), head_, head_size_);
  in_pos_ = 0;
  in_end_ = head_size_;
  in_offset_ = 0;
}

Status ByteSource::DecodeError(const std::string& what, const std::string& after) const {
  return Status::IOError(fmt::format("{}: {} at decompressed offset {} (compressed offset {}){}",
                                     name_, what, position_, in_offset_, after));
}

Status ByteSource::Read(char* dst, size_t n, size_t* got) {
  *got = 0;
  interrupted_ = false;
  if (!failed_.ok()) return failed_;
  if (at_end_) return Status::Ok();
  bool did_read = false;  // a pipe reads once per call: a poll() said one read would not block
  if (!detected_) {
    Status s = Peek();
    if (!s.ok() || interrupted_ || !detected_) return s;
    did_read = true;
  }
  if (format_ == Compression::kNone) {
    if (head_taken_ < head_size_) {
      const size_t k = std::min(n, head_size_ - head_taken_);
      std::memcpy(dst, head_ + head_taken_, k);
      head_taken_ += k;
      position_ += k;
      *got = k;
      return Status::Ok();
    }
    if (raw_end_) {
      at_end_ = true;
      return Status::Ok();
    }
    if (did_read && !seekable_) return Status::Ok();
    const ssize_t r = ::read(fd_, dst, n);
    if (r < 0) {
      if (errno == EINTR) {
        interrupted_ = true;
        return Status::Ok();
      }
      return Status::IOError(fmt::format("cannot read {}: {}", name_, std::strerror(errno)));
    }
    if (r == 0) at_end_ = raw_end_ = true;
    position_ += static_cast<uint64_t>(r);
    *got = static_cast<size_t>(r);
    return Status::Ok();
  }
  while (true) {
    if (in_pos_ < in_end_ || decoder_->pending()) {
      const char* p = in_.get() + in_pos_;
      size_t made = 0;
      Decoder::Failure failure;
      const bool ok = decoder_->Step(&p, in_.get() + in_end_, dst, n, &made, &failure);
      const size_t used = static_cast<size_t>(p - (in_.get() + in_pos_));
      in_pos_ += used;
      in_offset_ += used;
      position_ += made;
      if (!ok) {
        failed_ = DecodeError(FailureText(format_, failure), FixText(failure));
        return failed_;
      }
      if (made > 0) {
        *got = made;
        return Status::Ok();
      }
      if (used > 0 && in_pos_ < in_end_) continue;
    }
    if (raw_end_) {
      if (in_pos_ == in_end_ && decoder_->between()) {
        at_end_ = true;
        return Status::Ok();
      }
      failed_ = DecodeError(fmt::format(
          "the {} data ends inside a {} (the file is truncated, or still being written)",
          CompressionName(format_), format_ == Compression::kGzip ? "member" : "frame"));
      return failed_;
    }
    if (did_read && !seekable_) return Status::Ok();
    if (in_pos_ > 0) {
      std::memmove(in_.get(), in_.get() + in_pos_, in_end_ - in_pos_);
      in_end_ -= in_pos_;
      in_pos_ = 0;
    }
    if (in_end_ == kInSize) {  // a full buffer the decoder takes nothing from
      failed_ = DecodeError(fmt::format("damaged {} data", CompressionName(format_)));
      return failed_;
    }
    const ssize_t r = ::read(fd_, in_.get() + in_end_, kInSize - in_end_);
    if (r < 0) {
      if (errno == EINTR) {
        interrupted_ = true;
        return Status::Ok();
      }
      return Status::IOError(fmt::format("cannot read {}: {}", name_, std::strerror(errno)));
    }
    if (r == 0) raw_end_ = true;
    in_end_ += static_cast<size_t>(r);
    did_read = true;
  }
}

Status ByteSource::Seek(uint64_t offset) {
  if (::lseek(fd_, static_cast<off_t>(offset), SEEK_SET) < 0) {
    return Status::IOError(fmt::format("cannot seek in {}: {}", name_, std::strerror(errno)));
  }
  head_taken_ = head_size_;
  position_ = offset;
  at_end_ = raw_end_ = false;
  return Status::Ok();
}

Status ByteSource::Rewind() {
  if (format_ == Compression::kNone || !detected_) {
    head_size_ = head_taken_ = 0;
    detected_ = false;
    return Seek(0);
  }
  if (::lseek(fd_, 0, SEEK_SET) < 0) {
    return Status::IOError(fmt::format("cannot seek in {}: {}", name_, std::strerror(errno)));
  }
  decoder_->Reset();
  in_pos_ = in_end_ = 0;
  in_offset_ = 0;
  position_ = 0;
  at_end_ = raw_end_ = false;
  failed_ = Status::Ok();
  return Status::Ok();
}

Status ByteSource::ReadAt(uint64_t offset, size_t n, std::string* out) const {
  out->clear();
  Compression format = format_;
  if (!detected_) {
    char head[sizeof(head_)];
    const ssize_t r = ::pread(fd_, head, sizeof(head), 0);
    if (r < 0)
      return Status::IOError(fmt::format("cannot read {}: {}", name_, std::strerror(errno)));
    bool decided;
    format = DetectCompression(std::string_view(head, static_cast<size_t>(r)), true, &decided);
  }
  if (format == Compression::kNone) {
    out->resize(n);
    const ssize_t got = ::pread(fd_, out->data(), n, static_cast<off_t>(offset));
    if (got < 0)
      return Status::IOError(fmt::format("cannot read {}: {}", name_, std::strerror(errno)));
    out->resize(static_cast<size_t>(got));
    return Status::Ok();
  }
  // Decompress from the start into scratch buffers, keeping [offset, offset + n).
  std::unique_ptr<Decoder> d = Decoder::For(format);
  // Small reads near the start (fingerprints) take small pieces of the file.
  const bool small = offset + n <= (64 << 10);
  std::string in(small ? 16 << 10 : kInSize, '\0');
  std::string buf(small ? offset + n : 64 << 10, '\0');
  uint64_t in_at = 0, made_total = 0;
  size_t in_pos = 0, in_end = 0;
  bool raw_end = false;
  while (made_total < offset + n) {
    bool need_input = in_pos == in_end && !d->pending();
    if (!need_input) {
      const char* p = in.data() + in_pos;
      size_t made = 0;
      Decoder::Failure failure;
      const size_t want =
          static_cast<size_t>(std::min<uint64_t>(buf.size(), offset + n - made_total));
      if (!d->Step(&p, in.data() + in_end, buf.data(), want, &made, &failure)) {
        return Status::IOError(fmt::format("{}: {} at decompressed offset {}{}", name_,
                                           FailureText(format, failure), made_total + made,
                                           FixText(failure)));
      }
      const size_t used = static_cast<size_t>(p - (in.data() + in_pos));
      in_pos += used;
      // Keep the part of [made_total, made_total + made) inside [offset, offset + n).
      const uint64_t lo = std::max(offset, made_total);
      const uint64_t hi = std::min(offset + n, made_total + made);
      if (hi > lo) out->append(buf.data() + (lo - made_total), static_cast<size_t>(hi - lo));
      made_total += made;
      need_input = made == 0 && used == 0;
    }
    if (need_input) {
      if (raw_end) break;  // the end (a truncated input is the stream reader's to report)
      const size_t rest = in_end - in_pos;
      std::memmove(in.data(), in.data() + in_pos, rest);
      const ssize_t r = ::pread(fd_, in.data() + rest, in.size() - rest, static_cast<off_t>(in_at));
      if (r < 0)
        return Status::IOError(fmt::format("cannot read {}: {}", name_, std::strerror(errno)));
      if (r == 0) raw_end = true;
      in_at += static_cast<uint64_t>(r);
      in_pos = 0;
      in_end = rest + static_cast<size_t>(r);
    }
  }
  return Status::Ok();
}

}  // namespace logtide
