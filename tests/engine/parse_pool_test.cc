// ParsePool against an obviously right reading: every line of the file split at '\n' and
// parsed by one EventParser, in order. Any number of workers and any block size must give the
// same lines and the same events (issue 27: the pool had no unit tests of its own).
#include "engine/parse_pool.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace logtide {
namespace {

// What one line gave, as comparable text.
std::string Describe(const Line& line, const Event& ev, size_t num_aggs) {
  std::string s = std::to_string(line.number) + "@" + std::to_string(line.offset) + "-" +
                  std::to_string(line.end_offset) + " " +
                  std::string(line.data, line.size) + " kind=" +
                  std::to_string(static_cast<int>(ev.kind));
  switch (ev.kind) {
    case Event::Kind::kEvent:
      s += " t=" + std::to_string(ev.time) + " key=" + std::string(ev.key);
      for (size_t a = 0; a < num_aggs; ++a) {
        const ValueRef& v = ev.aggs[a];
        s += " agg" + std::to_string(a) + "=" + std::to_string(static_cast<int>(v.type)) + "/" +
             (v.is_int ? std::to_string(v.i) : std::to_string(v.d)) + "/" + std::string(v.s);
      }
      break;
    case Event::Kind::kBad:
      s += " bad=" + std::to_string(static_cast<int>(ev.bad_kind)) + " " + std::string(ev.reason);
      break;
    case Event::Kind::kFiltered:
      s += " t=" + std::to_string(ev.time);
      break;
    case Event::Kind::kBlank:
      break;
  }
  return s;
}

std::string Lines(uint32_t seed, int n) {
  std::mt19937 rng(seed);
  const char* services[] = {"api", "web", "db", "a\\\"quoted\\\""};
  std::string text;
  for (int i = 0; i < n; ++i) {
    switch (rng() % 10) {
      case 0:
        text += "\n";  // blank
        break;
      case 1:
        text += "not json\n";
        break;
      case 2:
        text += "{\"service\":\"api\"}\n";  // no time
        break;
      default:
        text += "{\"ts\":" + std::to_string(1714557600 + i) + ",\"service\":\"" +
                services[rng() % 4] + "\",\"bytes\":" + std::to_string(rng() % 5000) +
                ",\"status\":" + std::to_string(rng() % 2 ? 200 : 503) + "}" +
                (rng() % 5 == 0 ? "\r\n" : "\n");
    }
  }
  return text + "{\"ts\":1714557600,\"service\":\"last\"}";  // a last line without its '\n'
}

EngineConfig Query(bool where) {
  EngineConfig c;
  REQUIRE(ParseWindowSpec("tumbling:1m", &c.window).ok());
  c.by = {"service"};
  for (const char* text : {"count", "sum(bytes)"}) {
    AggSpec a;
    REQUIRE(ParseAggSpec(text, &a).ok());
    c.aggs.push_back(a);
  }
  if (where) c.where = {"status >= 500"};
  return c;
}

// The obviously right reading.
std::vector<std::string> Reference(const EngineConfig& c, const std::string& text) {
  std::unique_ptr<EventParser> p;
  REQUIRE(EventParser::Create(c, &p).ok());
  std::vector<std::string> out;
  size_t pos = 0;
  uint64_t number = 0;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    const size_t end = nl == std::string::npos ? text.size() : nl;
    size_t size = end - pos;
    if (size > 0 && text[pos + size - 1] == '\r') --size;
    std::string buf = text.substr(pos, size) + std::string(EventParser::kPadding, ' ');
    Event ev;
    p->Parse(buf.data(), size, buf.size(), &ev);
    Line line{buf.data(), size, buf.size(), pos, nl == std::string::npos ? end : end + 1,
              ++number, nl != std::string::npos, 0};
    out.push_back(Describe(line, ev, c.aggs.size()));
    pos = line.end_offset;
  }
  return out;
}

std::vector<std::string> Pooled(const EngineConfig& c, const std::string& path, int workers,
                                size_t block) {
  std::unique_ptr<LineReader> r;
  REQUIRE(LineReader::Open(path, 4096, &r).ok());
  ParsePool pool(c, {r.get()}, block);
  REQUIRE(pool.Start(workers).ok());
  std::vector<std::string> out;
  Line line;
  Event ev;
  while (true) {
    bool have = false;
    REQUIRE(pool.Next(0, &line, &ev, &have).ok());
    if (!have) break;
    out.push_back(Describe(line, ev, c.aggs.size()));
  }
  return out;
}

TEST_CASE("parse pool: any workers and block size give the lines and events of a plain read") {
  char path[] = "/tmp/logtide_pool_XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  const std::string text = Lines(7, 3000);
  REQUIRE(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  ::close(fd);
  for (bool where : {false, true}) {
    const EngineConfig c = Query(where);
    const std::vector<std::string> expected = Reference(c, text);
    REQUIRE(expected.size() > 2000);
    for (int workers : {0, 1, 2}) {
      for (size_t block : {size_t{64}, size_t{1000}, size_t{1} << 16}) {
        INFO("where " << where << ", workers " << workers << ", block " << block);
        const std::vector<std::string> got = Pooled(c, path, workers, block);
        REQUIRE(got.size() == expected.size());
        for (size_t i = 0; i < got.size(); ++i) {
          if (got[i] != expected[i]) FAIL_CHECK("line " << i + 1 << ": " << got[i] << " != " << expected[i]);
        }
      }
    }
  }
  std::remove(path);
}

}  // namespace
}  // namespace logtide
