// The records of the side outputs: a bad line (--errors), a late or partly late event
// (--late-output), one NDJSON object each, appended to a buffer.
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

// The windows a partly late event missed: the first `missed` of its `windows` (in end order,
// a slide apart), from [first_start, first_end) to [last_start, last_end).
struct MissedWindows {
  uint32_t windows;
  uint32_t missed;  // 0 < missed < windows
  Nanos first_start, first_end;
  Nanos last_start, last_end;
};

// A partly late event (added to some of its windows, too late for the others), in a bounded
// form however many windows it missed:
// {"input":..,"line":..,"offset":..,"event_time":..,"watermark":..,"reason":"partly late",
//  "windows":N,"missed":M,"first_missed":{"window_start":..,"window_end":..},
//  "last_missed":{"window_start":..,"window_end":..},"event":EVENT}
// where EVENT is the line as it is when `valid` (valid JSON), else the line as a JSON string.
void AppendPartlyLateRecord(const LineOrigin& at, Nanos event_time, Nanos watermark,
                            const MissedWindows& missed, std::string_view event, bool valid,
                            std::string* out);

}  // namespace logtide
