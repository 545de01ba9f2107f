#include "keys/key_table.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/event_parser.h"

namespace logtide {
namespace {

TEST_CASE("KeyTable: a key is removed with its last reference and its id is recycled") {
  KeyTable keys;
  const uint32_t a = keys.Intern("alpha");
  CHECK(keys.Intern("alpha") == a);
  const uint32_t b = keys.Intern("beta");
  CHECK(b != a);
  keys.Ref(a);
  keys.ReleaseIfUnused(a);  // referenced: stays
  CHECK(keys.encoded(a) == "alpha");
  keys.ReleaseIfUnused(b);  // unreferenced: removed
  CHECK(keys.size() == 1);
  CHECK(keys.Intern("gamma") == b);  // b's id, recycled
  keys.Unref(a);
  CHECK(keys.size() == 1);
}

TEST_CASE("KeyCache: a cached token gives its id without a lookup, and holds a reference") {
  KeyTable keys;
  KeyCache cache(&keys);
  const uint32_t a = cache.Intern("alpha", KeyTable::Hash("alpha"), 7, 3);
  CHECK(keys.refs(a) == 1);
  // The token decides: the bytes given with a cached token are not looked at.
  CHECK(cache.Intern("other", KeyTable::Hash("other"), 7, 3) == a);
  CHECK(keys.size() == 1);
  // The engine drops unreferenced keys after each event; a cached one stays.
  keys.ReleaseIfUnused(a);
  CHECK(keys.encoded(a) == "alpha");

  // A new token in the slot takes the slot: the old key loses the cache's reference.
  const uint32_t b = cache.Intern("beta", KeyTable::Hash("beta"), 8, 3);
  CHECK(b != a);
  CHECK(keys.size() == 1);  // alpha had no other reference
  CHECK(keys.refs(b) == 1);

  // The same key under a new token keeps one reference from the cache.
  CHECK(cache.Intern("beta", KeyTable::Hash("beta"), 9, 3) == b);
  CHECK(keys.refs(b) == 1);

  // Token 0: a plain lookup, nothing cached.
  const uint32_t c = cache.Intern("gamma", KeyTable::Hash("gamma"), 0, 5);
  CHECK(keys.refs(c) == 0);
  CHECK(cache.Intern("delta", KeyTable::Hash("delta"), 0, 5) != c);

  cache.Clear();
  CHECK(keys.refs(b) == 0);
}

// Parses an event whose key is one string field, "service".
Event ParseService(EventParser* parser, const std::string& service_json) {
  std::string line = R"({"ts":"2024-05-01T10:00:00Z","service":")" + service_json + "\"}";
  const size_t size = line.size();
  line.append(EventParser::kPadding, ' ');
  Event ev;
  parser->Parse(line.data(), size, line.size(), &ev);
  REQUIRE(ev.kind == Event::Kind::kEvent);
  CHECK(ev.key_slot < KeyCache::kSlots);
  return ev;  // its key points into the parser, valid until its next line
}

TEST_CASE("EventParser: one token per recent string key, never the same for two keys") {
  EngineConfig config;
  config.by = {"service"};
  config.aggs = {AggSpec{}};  // count
  std::unique_ptr<EventParser> p, q;
  REQUIRE(EventParser::Create(config, &p).ok());
  REQUIRE(EventParser::Create(config, &q).ok());
  auto parse = [](EventParser* parser, const std::string& service) {
    const Event ev = ParseService(parser, service);
    return std::make_pair(ev.key_token, std::string(ev.key));
  };
  const auto api = parse(p.get(), "api");
  const auto web = parse(p.get(), "web");
  CHECK(api.first != 0);
  CHECK(web.first != 0);
  CHECK(api.first != web.first);
  CHECK(parse(p.get(), "api") == api);
  CHECK(parse(p.get(), "web") == web);
  // Another parser (another thread's) gives its own tokens, even to the same key.
  const auto api_q = parse(q.get(), "api");
  CHECK(api_q.second == api.second);
  CHECK(api_q.first != api.first);
  CHECK(api_q.first != web.first);
}

TEST_CASE("EventParser: the key memo gives each key its own encoding, and keeps recent keys") {
  EngineConfig config;
  config.by = {"service"};
  config.aggs = {AggSpec{}};
  std::unique_ptr<EventParser> p;
  REQUIRE(EventParser::Create(config, &p).ok());
  auto parse = [&](const std::string& service) {
    const Event ev = ParseService(p.get(), service);
    std::string expected;
    EncodeValue(ValueRef::String(service == "tab\\tbed" ? "tab\tbed" : service), &expected);
    CHECK(ev.key == expected);
    CHECK(ev.key_hash == KeyTable::Hash(expected));
    return ev.key_token;
  };
  // Keys alike in their first 8 bytes or in their length, an empty one, one with an escape.
  const std::vector<std::string> keys = {"billing-eu-west", "billing-eu-east", "billing-", "billing",
                                         "", "a", "b", "tab\\tbed", "api", "web"};
  std::vector<uint64_t> first;
  for (const std::string& k : keys) first.push_back(parse(k));
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < keys.size(); ++i) {
      INFO(keys[i]);
      CHECK(parse(keys[i]) == first[i]);
    }
  }
  // The ten services of bench/gen.cc, in turn, all stay in the memo: a one-way memo of 16
  // entries lost two pairs of them to each other on every turn.
  const std::vector<std::string> services = {"api",  "web",   "auth",  "billing", "search",
                                             "cart", "media", "email", "admin",   "gateway"};
  std::vector<uint64_t> tokens;
  for (const std::string& k : services) tokens.push_back(parse(k));
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < services.size(); ++i) CHECK(parse(services[i]) == tokens[i]);
  }
}

TEST_CASE("EventParser: a config without aggregates is refused, not parsed with") {
  EngineConfig config;
  std::unique_ptr<EventParser> p;
  CHECK(!EventParser::Create(config, &p).ok());
}

TEST_CASE("EventParser: keys of several fields come without a token") {
  EngineConfig config;
  config.by = {"service", "host"};
  config.aggs = {AggSpec{}};
  std::unique_ptr<EventParser> p;
  REQUIRE(EventParser::Create(config, &p).ok());
  std::string line = R"({"ts":"2024-05-01T10:00:00Z","service":"api","host":"h1"})";
  const size_t size = line.size();
  line.append(EventParser::kPadding, ' ');
  Event ev;
  p->Parse(line.data(), size, line.size(), &ev);
  REQUIRE(ev.kind == Event::Kind::kEvent);
  CHECK(ev.key_token == 0);
}

}  // namespace
}  // namespace logtide
