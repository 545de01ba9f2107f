#include "engine/validate_config.h"

#include <catch2/catch.hpp>

namespace logtide {
namespace {

EngineConfig Tumbling() {
  EngineConfig c;
  REQUIRE(ParseWindowSpec("tumbling:1m", &c.window).ok());
  return c;
}

TEST_CASE("validate config: standard input and a count by default, idempotently") {
  EngineConfig c = Tumbling();
  REQUIRE(ValidateConfig(&c).ok());
  REQUIRE(c.inputs == std::vector<std::string>{"-"});
  REQUIRE(c.aggs.size() == 1);
  CHECK(c.aggs[0].name == "count");
  REQUIRE(ValidateConfig(&c).ok());
  CHECK(c.inputs.size() == 1);
  CHECK(c.aggs.size() == 1);
}

TEST_CASE("validate config: two output fields of one name are refused, naming it") {
  EngineConfig c = Tumbling();
  c.by = {"count"};
  const Status s = ValidateConfig(&c);
  CHECK(s.code() == Status::Code::kInvalidArgument);
  CHECK(s.message().find("two output fields are named \"count\"") != std::string::npos);
}

TEST_CASE("validate config: an unusable field path is refused before anything opens") {
  EngineConfig c = Tumbling();
  c.time_field = "a..b";
  const Status s = ValidateConfig(&c);
  CHECK(s.code() == Status::Code::kInvalidArgument);
  CHECK(s.message().find("--time") != std::string::npos);
}

}  // namespace
}  // namespace logtide
