// Bad lines of another format are named (issue 32): logfmt, CSV, TSV; broken JSON is not.
#include "json/line_format_hint.h"

#include <catch2/catch.hpp>
#include <string>

namespace logtide {
namespace {

std::string Kind(std::string_view line) {
  const std::string_view h = LineFormatHint(line);
  if (h.empty()) return "none";
  const size_t at = h.find("looks like ") + 11;
  return std::string(h.substr(at, h.find(' ', at) - at));
}

TEST_CASE("line hint: logfmt starts with key=value") {
  CHECK(Kind("ts=2024-05-01T10:00:00Z level=info msg=\"a b\"") == "logfmt");
  CHECK(Kind("  level=warn") == "logfmt");
  CHECK(Kind("log.level=info") == "logfmt");
  CHECK(Kind("x-request-id=abc, other") == "logfmt");
  CHECK(Kind("=value") == "none");  // no key
}

TEST_CASE("line hint: CSV and TSV by their separators") {
  CHECK(Kind("ts,level,msg") == "CSV");
  CHECK(Kind("2024-05-01T10:00:00Z,info,\"a, b\"") == "CSV");
  CHECK(Kind("\"only, quoted\"") == "none");  // starts with a quote: a broken JSON string
  CHECK(Kind("2024-05-01T10:00:00Z\tinfo\thi") == "TSV");
  CHECK(Kind("a\tb,c") == "TSV");  // tabs win: CSV fields rarely hold tabs
}

TEST_CASE("line hint: broken JSON and plain text get none") {
  CHECK(Kind("{\"ts\": 1,") == "none");
  CHECK(Kind("[1, 2]") == "none");
  CHECK(Kind("hello world") == "none");
  CHECK(Kind("") == "none");
  CHECK(Kind("   ") == "none");
}

}  // namespace
}  // namespace logtide
