#include "progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include "time/timestamp.h"
#include "util/diag.h"
#include "util/time_math.h"

namespace logtide {

ProgressPrinter::ProgressPrinter(std::FILE* out, bool forced)
    : out_(out), forced_(forced), tty_(isatty(fileno(out)) != 0) {}

void ProgressPrinter::Clear() {
  if (shown_ && tty_) Diag(out_, "\r\x1b[K");
}

void ProgressPrinter::OnProgress(const Progress& p) {
  constexpr uint64_t kAutoAfterBytes = 8 << 20;
  if (!forced_ && (!tty_ || (!shown_ && p.bytes_read < kAutoAfterBytes))) return;
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  double mbps = secs > 0 ? static_cast<double>(p.bytes_read) / 1e6 / secs : 0;
  std::string line = fmt::format("{:.0f} MB", static_cast<double>(p.bytes_read) / 1e6);
  if (p.total_bytes > 0) {
    line +=
        fmt::format(" of {:.0f} MB ({:.0f}%)", static_cast<double>(p.total_bytes) / 1e6,
                    100.0 * static_cast<double>(p.bytes_read) / static_cast<double>(p.total_bytes));
  }
  line += fmt::format(", {:.0f} MB/s, {} events", mbps, p.events);
  if (p.watermark != kMinusInfinity && p.watermark != kPlusInfinity)
    line += ", watermark " + FormatRfc3339(p.watermark);
  line += fmt::format(", {} open window{}", p.open_windows, p.open_windows == 1 ? "" : "s");
  if (p.total_bytes > 0 && mbps > 0 && !p.done) {
    line += fmt::format(
        ", ETA {:.0f}s",
        static_cast<double>(p.total_bytes - std::min(p.total_bytes, p.bytes_read)) / 1e6 / mbps);
  }
  if (p.done) line += ", done";
  if (tty_) {
    // On a terminal the line is rewritten in place and removed at the end.
    Diag(out_, "\r\x1b[K{}", line);
    if (p.done) Diag(out_, "\r\x1b[K");
  } else {
    Diag(out_, "logtide: progress: {}\n", line);
  }
  std::fflush(out_);
  shown_ = !p.done;
}

}  // namespace logtide
