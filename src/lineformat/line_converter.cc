#include "lineformat/line_converter.h"

#include <fmt/format.h>
#include <simdjson.h>

namespace logtide {

bool LineConverter::IsUtf8(std::string_view line) {
  return simdjson::validate_utf8(line.data(), line.size());
}

// As json/ words it for a line whose object holds the bytes (the extractor's reason).
Status LineConverter::NotUtf8() {
  return Status::DataError(
      BadKind::kNotJson,
      fmt::format("invalid JSON: {}", simdjson::error_message(simdjson::UTF8_ERROR)));
}

}  // namespace logtide
