// Status: the result of a fallible call, LevelDB style. Ok or an error code with a message.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace logtide {

// Why an input line is not an event. Set where the reason is made (the extractor, the time
// formats, the event parser, the engine's range checks) and carried by the Status beside its
// message, so a line is never classified by its text. The run report groups a run's bad lines
// by it and says for the largest group what to change.
enum class BadKind : uint8_t {
  kNotJson,    // not one JSON object: invalid JSON or UTF-8, an array, a scalar
  kNoTime,     // the time field is missing or null
  kBadTime,    // the time field holds what --time-format cannot read as a time
  kTimeRange,  // a time read, but outside what 64-bit nanoseconds hold or the query can window
  kTooFarAhead,  // more than --max-future ahead of the watermark
  kTooLong,      // longer than --max-line-length: its bytes were dropped as they were read
};
inline constexpr int kBadKinds = 6;

class [[nodiscard]] Status {
 public:
  enum class Code { kOk, kInvalidArgument, kDataError, kIOError, kCorruption, kBusy, kRefused };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) {
    return Status(Code::kInvalidArgument, std::move(msg));
  }
  // A bad input record: reported and counted, the run goes on. `kind` says what is wrong.
  static Status DataError(BadKind kind, std::string msg) {
    Status s(Code::kDataError, std::move(msg));
    s.bad_kind_ = kind;
    return s;
  }
  static Status IOError(std::string msg) { return Status(Code::kIOError, std::move(msg)); }
  static Status Corruption(std::string msg) { return Status(Code::kCorruption, std::move(msg)); }
  // A resource (the state file) is in use by another run.
  static Status Busy(std::string msg) { return Status(Code::kBusy, std::move(msg)); }
  // The saved state and this run do not fit together (another query, a replaced input, ...).
  static Status Refused(std::string msg) { return Status(Code::kRefused, std::move(msg)); }

  // An ok Status holds no message, so making, copying and testing one costs a word or two:
  // every input line passes a few of them around.
  Status(const Status& o)
      : code_(o.code_),
        bad_kind_(o.bad_kind_),
        msg_(o.msg_ ? new std::string(*o.msg_) : nullptr) {}
  Status& operator=(const Status& o) {
    if (this != &o) {
      code_ = o.code_;
      bad_kind_ = o.bad_kind_;
      msg_.reset(o.msg_ ? new std::string(*o.msg_) : nullptr);
    }
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  // Empty for an ok Status.
  const std::string& message() const { return msg_ ? *msg_ : kNoMessage; }
  // REQUIRES: code() == Code::kDataError.
  BadKind bad_kind() const { return bad_kind_; }

 private:
  Status(Code code, std::string msg)
      : code_(code), msg_(std::make_unique<std::string>(std::move(msg))) {}
  static inline const std::string kNoMessage;
  Code code_ = Code::kOk;
  BadKind bad_kind_ = BadKind::kNotJson;  // kDataError only
  std::unique_ptr<std::string> msg_;
};

}  // namespace logtide
