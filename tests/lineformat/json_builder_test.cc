// The JSON number grammar that decides a logfmt, CSV or TSV value's type (issue 32).
#include "lineformat/json_builder.h"

#include <catch2/catch.hpp>

#include "lineformat/input_format.h"

namespace logtide {
namespace {

TEST_CASE("json builder: JSON numbers and what only looks like one") {
  for (const char* yes : {"0", "-0", "12", "-12.5", "0.001", "1e3", "1E+3", "2.5e-7",
                          "123456789012345678901234567890"})
    CHECK(IsJsonNumber(yes));
  for (const char* no : {"", "-", "012", "+1", ".5", "1.", "1e", "1e+", "0x10", "NaN", "inf",
                         "1 ", " 1", "1,5", "--1", "1.2.3"})
    CHECK_FALSE(IsJsonNumber(no));
}

TEST_CASE("json builder: strings escaped for JSON") {
  JsonBuilder b;
  b.Begin(64);
  b.Comma();
  b.String(std::string_view("a\"\\\n\x01\x1f", 6));
  CHECK(b.Finish() == R"({"a\"\\\n\u0001\u001f"})");
}

TEST_CASE("json builder: escapes found at every place of a word, 8 bytes at a time") {
  // Each byte to escape at each offset of strings of 0 to 24 bytes (with UTF-8 around it),
  // against escaping byte by byte.
  for (const char special : {'"', '\\', '\n', '\x01', '\x1f'}) {
    for (size_t size = 0; size <= 24; ++size) {
      for (size_t at = 0; at <= size; ++at) {
        std::string s;
        for (size_t i = 0; i < size; ++i) s += i % 5 == 4 ? '\xc3' : static_cast<char>('a' + i);
        if (at < size) s[at] = special;
        std::string want = "{\"";
        for (const char c : s) {
          const unsigned char u = static_cast<unsigned char>(c);
          if (c == '"' || c == '\\') {
            want += '\\';
            want += c;
          } else if (c == '\n') {
            want += "\\n";
          } else if (u < 0x20) {
            want += u == 1 ? "\\u0001" : "\\u001f";
          } else {
            want += c;
          }
        }
        want += "\"}";
        JsonBuilder b;
        b.Begin(6 * s.size() + 4);
        b.Comma();
        b.String(s);
        CAPTURE(size, at, static_cast<int>(special));
        CHECK(b.Finish() == want);
      }
    }
  }
}

TEST_CASE("input format: names both ways") {
  InputFormat f;
  for (const char* name : {"ndjson", "logfmt", "csv", "tsv"}) {
    REQUIRE(ParseInputFormat(name, &f));
    CHECK(InputFormatName(f) == name);
  }
  CHECK_FALSE(ParseInputFormat("json", &f));
  CHECK_FALSE(ParseInputFormat("CSV", &f));
  CHECK(HasHeader(InputFormat::kCsv));
  CHECK(HasHeader(InputFormat::kTsv));
  CHECK_FALSE(HasHeader(InputFormat::kLogfmt));
}

}  // namespace
}  // namespace logtide
