// The record formats (--format).
#pragma once

namespace logtide {

enum class OutputFormat { kNdjson, kCsv, kTable };

}  // namespace logtide
