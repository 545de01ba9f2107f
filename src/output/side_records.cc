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
  b->append(",\"event_time\":\"");
  AppendRfc3339(event_time, b);
  b->append("\",\"watermark\":\"");
  AppendRfc3339(watermark, b);
  b->append("\",\"reason\":\"late\",\"event\":");
  b->append(event);
  b->append("}\n");
}

}  // namespace logtide
