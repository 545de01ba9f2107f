// One line of an --input-format other than NDJSON, converted into the JSON object it stands
// for, in a buffer reused from line to line (one converter per parsing thread).
#pragma once

#include <cstddef>
#include <string_view>

#include "lineformat/csv.h"
#include "lineformat/input_format.h"
#include "lineformat/json_builder.h"
#include "lineformat/logfmt.h"
#include "util/status.h"

namespace logtide {

class LineConverter {
 public:
  // Converts `line` of `format` (not kNdjson) into *json: valid until the next call, with
  // capacity() readable bytes from its start (at least its size plus kJsonPadding).
  // REQUIRES: header != nullptr when HasHeader(format).
  Status Convert(InputFormat format, const CsvHeader* header, std::string_view line,
                 std::string_view* json) {
    Status s = format == InputFormat::kLogfmt ? LogfmtToJson(line, &builder_)
                                              : header->RowToJson(line, &builder_);
    if (s.ok()) *json = builder_.Finish();
    return s;
  }
  size_t capacity() const { return builder_.capacity(); }

 private:
  JsonBuilder builder_;
};

}  // namespace logtide
