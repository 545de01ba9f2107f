#include "lineformat/input_format.h"

namespace logtide {

std::string_view InputFormatName(InputFormat format) {
  switch (format) {
    case InputFormat::kLogfmt:
      return "logfmt";
    case InputFormat::kCsv:
      return "csv";
    case InputFormat::kTsv:
      return "tsv";
    default:
      return "ndjson";
  }
}

bool ParseInputFormat(std::string_view name, InputFormat* format) {
  for (InputFormat f :
       {InputFormat::kNdjson, InputFormat::kLogfmt, InputFormat::kCsv, InputFormat::kTsv}) {
    if (name == InputFormatName(f)) {
      *format = f;
      return true;
    }
  }
  return false;
}

}  // namespace logtide
