// Canonical JSON: one spelling for values equal as JSON.
#include "json/canonical_json.h"

#include <simdjson.h>

#include <catch2/catch.hpp>
#include <string>

namespace logtide {
namespace {

std::string Canonical(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element e;
  REQUIRE(parser.parse(json).get(e) == simdjson::SUCCESS);
  std::string out;
  AppendCanonicalJson(e, &out);
  return out;
}

TEST_CASE("canonical JSON: sorted keys, the last of a repeated key, numbers as values") {
  CHECK(Canonical(R"({ "b": 1, "a": [true, null, "x"] })") == R"({"a":[true,null,"x"],"b":1})");
  CHECK(Canonical(R"({"k":1,"j":0,"k":2})") == R"({"j":0,"k":2})");
  CHECK(Canonical("[2e2, 200.0, 0.5, -0, 18446744073709551615]") ==
        "[200,200,0.5,0,1.8446744073709552e+19]");
  CHECK(Canonical(R"(["\u0041\/\n", "\u001f\"\\", "caf\u00e9"])") ==
        "[\"A/\\n\",\"\\u001f\\\"\\\\\",\"caf\xC3\xA9\"]");
}

}  // namespace
}  // namespace logtide
