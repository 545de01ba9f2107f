// Status: the result of a fallible call, LevelDB style. Ok or an error code with a message.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace logtide {

class Status {
 public:
  enum class Code { kOk, kInvalidArgument, kDataError, kIOError, kCorruption, kBusy, kRefused };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) {
    return Status(Code::kInvalidArgument, std::move(msg));
  }
  // A bad input record: reported and counted, the run goes on.
  static Status DataError(std::string msg) { return Status(Code::kDataError, std::move(msg)); }
  static Status IOError(std::string msg) { return Status(Code::kIOError, std::move(msg)); }
  static Status Corruption(std::string msg) { return Status(Code::kCorruption, std::move(msg)); }
  // A resource (the state file) is in use by another run.
  static Status Busy(std::string msg) { return Status(Code::kBusy, std::move(msg)); }
  // The saved state and this run do not fit together (another query, a replaced input, ...).
  static Status Refused(std::string msg) { return Status(Code::kRefused, std::move(msg)); }

  // An ok Status holds no message, so making, copying and testing one costs a word or two:
  // every input line passes a few of them around.
  Status(const Status& o) : code_(o.code_), msg_(o.msg_ ? new std::string(*o.msg_) : nullptr) {}
  Status& operator=(const Status& o) {
    if (this != &o) {
      code_ = o.code_;
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

 private:
  Status(Code code, std::string msg)
      : code_(code), msg_(std::make_unique<std::string>(std::move(msg))) {}
  static inline const std::string kNoMessage;
  Code code_ = Code::kOk;
  std::unique_ptr<std::string> msg_;
};

}  // namespace logtide
