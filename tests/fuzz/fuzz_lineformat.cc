// Fuzz target: the line converters of --input-format (lineformat/: logfmt, CSV, TSV).
//
// Input: a first byte picks the format (its value mod 3: logfmt, CSV, TSV), the rest is lines.
// logfmt converts every line; CSV and TSV take the first line as the header and convert the
// others as its rows. Checked, for every line converted:
//  - the object stays inside the builder's buffer with the padding the extractor reads past it
//    (size + kJsonPadding <= capacity), however many bytes need escaping;
//  - it is one JSON object that simdjson parses, unless the line (or its header) is not valid
//    UTF-8 (the converters copy bytes; json/ checks UTF-8 when it reads the object) or holds a
//    number out of a double's range (refused as in NDJSON);
//  - a CSV or TSV row has exactly as many members as its header has fields, and a header that
//    is refused makes every row refused;
//  - a line refused is refused with a reason (DataError of kind kNotJson), never silently;
//  - the same line converted again in the same builder (its buffer reused) gives the same bytes;
//  - converted with only some keys (LineConverter::set_keys: a, ts, b), it is refused exactly
//    when it is refused with all of them (or, besides, when it is not valid UTF-8), and holds
//    the same members of those keys, in the same order.
#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz/check.h"
#include "json/padding.h"
#include "lineformat/csv.h"
#include "lineformat/json_builder.h"
#include "lineformat/line_converter.h"
#include "lineformat/logfmt.h"

namespace logtide {
namespace {

bool Utf8(std::string_view s) { return simdjson::validate_utf8(s.data(), s.size()); }

// `utf8`: the line (and its header) are valid UTF-8.
void CheckObject(bool utf8, std::string_view json, size_t capacity, int64_t members) {
  FUZZ_CHECK(json.size() + kJsonPadding <= capacity, "object of %zu bytes, buffer of %zu",
             json.size(), capacity);
  static simdjson::dom::parser parser;
  simdjson::dom::element doc;
  const simdjson::error_code e = parser.parse(simdjson::padded_string(json)).get(doc);
  if (e == simdjson::UTF8_ERROR) {
    FUZZ_CHECK(!utf8,
               "valid UTF-8 line gave an object simdjson calls invalid UTF-8: %s",
               std::string(json).c_str());
    return;
  }
  // A bare value that is a number by JSON's grammar but out of a double's range (6e503) is
  // written as that number; json/ refuses it as it refuses it in an NDJSON line.
  if (e == simdjson::NUMBER_ERROR) return;
  FUZZ_CHECK(e == simdjson::SUCCESS, "not JSON (%s): %s", simdjson::error_message(e),
             std::string(json).c_str());
  simdjson::dom::object object;
  FUZZ_CHECK(doc.get(object) == simdjson::SUCCESS, "not an object: %s", std::string(json).c_str());
  if (members >= 0) {
    int64_t n = 0;
    for (auto field : object) {
      (void)field;
      ++n;
    }
    FUZZ_CHECK(n == members, "%lld members, the header has %lld: %s", static_cast<long long>(n),
               static_cast<long long>(members), std::string(json).c_str());
  }
}

// The members of `json` whose key is a, ts or b, minified, in order; nullopt when simdjson
// refuses the object.
std::optional<std::string> SomeMembers(std::string_view json) {
  static simdjson::dom::parser parser;
  simdjson::dom::object o;
  if (parser.parse(simdjson::padded_string(json)).get(o)) return std::nullopt;
  std::string out;
  for (auto field : o) {
    if (field.key == "a" || field.key == "ts" || field.key == "b")
      out += std::string(field.key) + "=" + simdjson::to_string(field.value) + ";";
  }
  return out;
}

void CheckRefusal(const Status& s) {
  FUZZ_CHECK(s.bad_kind() == BadKind::kNotJson && !s.message().empty(),
             "refused without a reason of kind kNotJson: %s", s.message().c_str());
}

}  // namespace
}  // namespace logtide

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace logtide;
  if (size == 0) return 0;
  const int format = data[0] % 3;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  JsonBuilder builder;
  LineConverter some;
  some.set_keys(KeySet({"a", "ts", "b"}));
  const InputFormat formats[] = {InputFormat::kLogfmt, InputFormat::kCsv, InputFormat::kTsv};
  std::optional<CsvHeader> header;
  std::string header_line;
  bool first = true;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (format != 0 && first) {
      header.emplace(line, format == 1 ? ',' : '\t');
      header_line = std::string(line);
      first = false;
      continue;
    }
    Status s = format == 0 ? LogfmtToJson(line, KeySet(), &builder)
                           : header->RowToJson(line, nullptr, &builder);
    std::string_view projected;
    Status p = some.Convert(formats[format], format == 0 ? nullptr : &*header, line, &projected);
    if (!s.ok()) {
      CheckRefusal(s);
      FUZZ_CHECK(!p.ok() && p.message() == s.message(), "refused with all keys (%s), not with some",
                 s.message().c_str());
      continue;
    }

    FUZZ_CHECK(format == 0 || header->error().empty(), "a row of a refused header converted: %s",
               header->error().c_str());
    const std::string json(builder.Finish());
    if (!p.ok()) {
      FUZZ_CHECK(!Utf8(line), "converted with all keys, refused with some: %s",
                 p.message().c_str());
    } else if (const std::optional<std::string> want = SomeMembers(json)) {
      FUZZ_CHECK(SomeMembers(projected) == want, "other members with some keys: %s",
                 std::string(projected).c_str());
    }
    CheckObject(Utf8(line) && Utf8(header_line), json, builder.capacity(),
                format == 0 ? -1 : static_cast<int64_t>(header->size()));
    Status t = format == 0 ? LogfmtToJson(line, KeySet(), &builder)
                           : header->RowToJson(line, nullptr, &builder);
    FUZZ_CHECK(t.ok(), "converted once, refused the second time: %s", t.message().c_str());
    FUZZ_CHECK(builder.Finish() == json, "two conversions differ");
  }
  return 0;
}
