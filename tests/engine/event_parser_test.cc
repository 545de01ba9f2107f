// EventParser: what one line parses to (issue 27: the parser had no unit tests of its own).
#include "engine/event_parser.h"

#include <catch2/catch.hpp>
#include <string>

#include "time/timestamp.h"

namespace logtide {
namespace {

EngineConfig Query(std::vector<std::string> where = {}) {
  EngineConfig c;
  REQUIRE(ParseWindowSpec("tumbling:1m", &c.window).ok());
  c.by = {"service"};
  AggSpec count;
  REQUIRE(ParseAggSpec("count", &count).ok());
  c.aggs = {count};
  c.where = std::move(where);
  return c;
}

// Parses `line` (padded as the readers pad it) into *ev.
struct Parsed {
  std::string buf;
  Event ev;
};
void Parse(EventParser* p, const std::string& line, Parsed* out) {
  out->buf = line + std::string(EventParser::kPadding, ' ');
  p->Parse(out->buf.data(), line.size(), out->buf.size(), &out->ev);
}

const Nanos k10h = 1714557600 * kNanosPerSecond;  // 2024-05-01T10:00:00Z

TEST_CASE("event parser: an event has its time and its key") {
  const EngineConfig c = Query();
  std::unique_ptr<EventParser> p;
  REQUIRE(EventParser::Create(c, &p).ok());
  Parsed a, b;
  Parse(p.get(), R"({"ts":"2024-05-01T10:00:00Z","service":"api"})", &a);
  REQUIRE(a.ev.kind == Event::Kind::kEvent);
  CHECK(a.ev.time == k10h);
  const std::string key(a.ev.key);
  Parse(p.get(), R"({"service":"api","ts":1714557601})", &b);
  REQUIRE(b.ev.kind == Event::Kind::kEvent);
  CHECK(b.ev.time == k10h + kNanosPerSecond);
  CHECK(std::string(b.ev.key) == key);  // the same key, whatever the order of the fields
}

TEST_CASE("event parser: blank lines and a byte order mark") {
  const EngineConfig c = Query();
  std::unique_ptr<EventParser> p;
  REQUIRE(EventParser::Create(c, &p).ok());
  Parsed x;
  Parse(p.get(), " \t ", &x);
  CHECK(x.ev.kind == Event::Kind::kBlank);
  Parse(p.get(), "\xEF\xBB\xBF{\"ts\":\"2024-05-01T10:00:00Z\"}", &x);
  CHECK(x.ev.kind == Event::Kind::kEvent);
}

TEST_CASE("event parser: a bad line's kind is the one its reason was made with") {
  const EngineConfig c = Query();
  std::unique_ptr<EventParser> p;
  REQUIRE(EventParser::Create(c, &p).ok());
  struct Case {
    const char* line;
    BadKind kind;
  } cases[] = {
      {"GET /index.html 200", BadKind::kNotJson},
      {"[1,2]", BadKind::kNotJson},
      {R"({"ts":"2024-05-01T10:00:00Z")", BadKind::kNotJson},
      {R"({"service":"api"})", BadKind::kNoTime},
      {R"({"ts":null})", BadKind::kNoTime},
      {R"({"ts":true})", BadKind::kBadTime},
      {R"({"ts":{"s":1}})", BadKind::kBadTime},
      {R"({"ts":"yesterday"})", BadKind::kBadTime},
      {R"({"ts":1e30})", BadKind::kTimeRange},
      {R"({"ts":"2300-01-01T00:00:00Z"})", BadKind::kTimeRange},
  };
  for (const Case& k : cases) {
    INFO(k.line);
    Parsed x;
    Parse(p.get(), k.line, &x);
    REQUIRE(x.ev.kind == Event::Kind::kBad);
    CHECK(x.ev.bad_kind == k.kind);
    CHECK(!x.ev.reason.empty());
  }
}

TEST_CASE("event parser: a line --where rejects keeps its time, or kMinusInfinity (issue 28)") {
  const EngineConfig c = Query({"status >= 500"});
  std::unique_ptr<EventParser> p;
  REQUIRE(EventParser::Create(c, &p).ok());
  Parsed x;
  Parse(p.get(), R"({"ts":"2024-05-01T10:00:00Z","status":200})", &x);
  REQUIRE(x.ev.kind == Event::Kind::kFiltered);
  CHECK(x.ev.time == k10h);
  Parse(p.get(), R"({"ts":"soon","status":200})", &x);
  REQUIRE(x.ev.kind == Event::Kind::kFiltered);  // filtered, not bad
  CHECK(x.ev.time == kMinusInfinity);
  Parse(p.get(), R"({"status":200})", &x);
  REQUIRE(x.ev.kind == Event::Kind::kFiltered);
  CHECK(x.ev.time == kMinusInfinity);
  Parse(p.get(), R"({"ts":"2024-05-01T10:00:00Z","status":503})", &x);
  REQUIRE(x.ev.kind == Event::Kind::kEvent);
  CHECK(x.ev.time == k10h);
}

}  // namespace
}  // namespace logtide
