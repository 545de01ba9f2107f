// The records of the side outputs: a bad line (--errors) and a late event (--late-output),
// one NDJSON object each, appended to a buffer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "time/timestamp.h"

namespace logtide {

// Where a line came from.
struct LineOrigin {
  std::string_view input;  // the input's name
  uint64_t line;           // 1-based line number
  uint64_t offset;         // byte offset of the line's first byte
};

// {"input":..,"line":..,"offset":..,"reason":..,"raw":..}
void AppendBadLineRecord(const LineOrigin& at, std::string_view reason, std::string_view raw,
                         std::string* out);

// {"input":..,"line":..,"offset":..,"event_time":..,"watermark":..,"reason":"late","event":RAW}
// REQUIRES: `event` is valid JSON (it is copied as it is).
void AppendLateRecord(const LineOrigin& at, Nanos event_time, Nanos watermark,
                      std::string_view event, std::string* out);

}  // namespace logtide
