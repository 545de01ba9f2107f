// The formats an input's lines may be in (--input-format): NDJSON, read by json/ as it is, and
// logfmt, CSV and TSV, each line of which is converted into the JSON object it stands for
// (json_builder.h, logfmt.h, csv.h) before json/ reads it.
#pragma once

#include <string_view>

namespace logtide {

enum class InputFormat : unsigned char { kNdjson, kLogfmt, kCsv, kTsv };

// Returns the format's name as --input-format spells it ("ndjson", "logfmt", "csv", "tsv").
std::string_view InputFormatName(InputFormat format);
// Sets *format to the format `name` spells. Returns false for any other name.
bool ParseInputFormat(std::string_view name, InputFormat* format);

// Whether the first line of each file of this format is its header (CSV and TSV).
inline bool HasHeader(InputFormat format) {
  return format == InputFormat::kCsv || format == InputFormat::kTsv;
}

}  // namespace logtide
