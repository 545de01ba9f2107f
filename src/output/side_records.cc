#include "output/side_records.h"

#include <fmt/format.h>

#include "json/json_text.h"

namespace logtide {
namespace {

void AppendOrigin(const LineOrigin& at, std::string* b) {
  b->append("{\"input\":");
  AppendJsonString(at.input, b);
  fmt::format_to(std::back_inserter(*b), ",\"line\":{},\"offset\":{}", at.line, at.offset);
}

void AppendTimes(Nanos event_time, Nanos watermark, std::string* b) {
  b->append(",\"event_time\":\"");
  AppendRfc3339(event_time, b);
  b->append("\",\"watermark\":\"");
  AppendRfc3339(watermark, b);
  b->push_back('"');
}

void AppendWindow(std::string_view name, Nanos start, Nanos end, std::string* b) {
  fmt::format_to(std::back_inserter(*b), ",\"{}\":{{\"window_start\":\"", name);
  AppendRfc3339(start, b);
  b->append("\",\"window_end\":\"");
  AppendRfc3339(end, b);
  b->append("\"}");
}

}  // namespace

void AppendBadLineRecord(const LineOrigin& at, std::string_view reason, std::string_view raw,
                         std::string* b) {
  AppendOrigin(at, b);
  b->append(",\"reason\":");
  AppendJsonString(reason, b);
  b->append(",\"raw\":");
  AppendJsonString(raw, b);
  b->append("}\n");
}

void AppendLateRecord(const LineOrigin& at, Nanos event_time, Nanos watermark,
                      std::string_view event, std::string* b) {
  AppendOrigin(at, b);
  AppendTimes(event_time, watermark, b);
  b->append(",\"reason\":\"late\",\"event\":");
  b->append(event);
  b->append("}\n");
}

void AppendPartlyLateRecord(const LineOrigin& at, Nanos event_time, Nanos watermark,
                            const MissedWindows& m, std::string_view event, bool valid,
                            std::string* b) {
  AppendOrigin(at, b);
  AppendTimes(event_time, watermark, b);
  fmt::format_to(std::back_inserter(*b), ",\"reason\":\"partly late\",\"windows\":{},\"missed\":{}",
                 m.windows, m.missed);
  AppendWindow("first_missed", m.first_start, m.first_end, b);
  AppendWindow("last_missed", m.last_start, m.last_end, b);
  b->append(",\"event\":");
  if (valid) {
    b->append(event);
  } else {
    AppendJsonString(event, b);
  }
  b->append("}\n");
}

}  // namespace logtide
