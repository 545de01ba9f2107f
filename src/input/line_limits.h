// The limit on the length of a line that is read whole (LineReader::set_max_line_length), in a
// header of its own, so that a configuration can name its default without the reader.
#pragma once

#include <cstddef>

namespace logtide {

// 16 MiB: more than real log lines hold (Filebeat cuts lines at 10 MiB by default), little
// beside the memory a run takes anyway.
inline constexpr size_t kDefaultMaxLineLength = size_t{16} << 20;

}  // namespace logtide
