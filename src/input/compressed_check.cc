#include "input/compressed_check.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "input/byte_source.h"

namespace logtide {

CompressedCheck::~CompressedCheck() {
  if (thread_.joinable()) thread_.join();
}

void CompressedCheck::Start(int fd, const std::string& name) {
  std::lock_guard<std::mutex> lk(mu_);  // Wait may run on another thread
  if (started_) return;
  started_ = true;
  // The file `fd` has open, even if it is renamed while the check runs.
  const int check_fd = ::open(fmt::format("/proc/self/fd/{}", fd).c_str(), O_RDONLY | O_CLOEXEC);
  if (check_fd < 0) {
    status_ = Status::IOError(fmt::format("cannot open {}: {}", name, std::strerror(errno)));
    return;
  }
  thread_ = std::thread([this, check_fd, name] {
    ByteSource check(check_fd, true, name);
    std::vector<char> buf(1 << 16);
    Status st;
    while (st.ok()) {
      size_t got = 0;
      st = check.Read(buf.data(), buf.size(), &got);
      if (check.at_end()) break;
    }
    status_ = st;  // read by Wait after the join
  });
}

Status CompressedCheck::Wait() {
  std::lock_guard<std::mutex> lk(mu_);
  if (thread_.joinable()) thread_.join();
  return status_;
}

}  // namespace logtide
