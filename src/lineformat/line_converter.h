// One line of an --input-format other than NDJSON, converted into the JSON object it stands
// for, in a buffer reused from line to line (one converter per parsing thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "lineformat/csv.h"
#include "lineformat/input_format.h"
#include "lineformat/json_builder.h"
#include "lineformat/logfmt.h"
#include "util/status.h"

namespace logtide {

class LineConverter {
 public:
  // The objects hold only the members of `keys` (the default: every member). The bytes left
  // out are still checked as UTF-8, as an NDJSON line's are.
  void set_keys(KeySet keys) {
    keys_ = std::move(keys);
    header_id_ = 0;
  }

  // Converts `line` of `format` (not kNdjson) into *json: valid until the next call, with
  // capacity() readable bytes from its start (at least its size plus kJsonPadding).
  // REQUIRES: header != nullptr when HasHeader(format).
  Status Convert(InputFormat format, const CsvHeader* header, std::string_view line,
                 std::string_view* json) {
    Status s;
    if (format == InputFormat::kLogfmt) {
      s = LogfmtToJson(line, keys_, &builder_);
    } else {
      if (header->id() != header_id_ && !keys_.all()) {
        header_id_ = header->id();  // the same header for all the rows of a file
        columns_ = header->Columns(keys_);
      }
      s = header->RowToJson(line, keys_.all() ? nullptr : &columns_, &builder_);
    }
    if (!s.ok()) return s;
    if (!keys_.all() && !IsUtf8(line)) return NotUtf8();
    *json = builder_.Finish();
    return s;
  }
  size_t capacity() const { return builder_.capacity(); }

 private:
  static bool IsUtf8(std::string_view line);
  static Status NotUtf8();

  JsonBuilder builder_;
  KeySet keys_;
  uint64_t header_id_ = 0;  // the header whose columns_ these are (CsvHeader::id)
  std::vector<uint8_t> columns_;
};

}  // namespace logtide
