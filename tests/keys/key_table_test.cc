#include "keys/key_table.h"

#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <set>
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

TEST_CASE("KeyTable: the interner's contract holds under random use, with and without tokens") {
  // A model of what a caller may rely on: the keys it holds references to keep their ids, two
  // held keys never share an id, an id's bytes are the key's, and nothing is left once every
  // reference (the cache's too) is dropped. How the cache picks what to keep is not checked.
  std::mt19937_64 rng(20261130);
  KeyTable keys;
  std::vector<std::string> universe;
  for (int i = 0; i < 200; ++i) universe.push_back("key-" + std::to_string(i * 7919 % 1000));
  // Tokens as parsers give them: one token means one key; a key may get new tokens.
  std::vector<uint64_t> token(universe.size());
  uint64_t next_token = 1;
  for (uint64_t& t : token) t = next_token++;
  std::map<std::string, std::pair<uint32_t, int>> held;  // bytes -> (id, our references)
  size_t checked = 0;
  for (int step = 0; step < 20000; ++step) {
    const size_t u = rng() % universe.size();
    const std::string& bytes = universe[u];
    const int op = static_cast<int>(rng() % 10);
    if (op < 6) {
      uint32_t id;
      if (op < 3) {
        id = keys.Intern(bytes);
      } else {
        if (op == 5) token[u] = next_token++;  // the key under a new token
        id = keys.Intern(bytes, KeyTable::Hash(bytes), token[u],
                         static_cast<uint32_t>(token[u] % KeyTable::kCacheSlots));
      }
      REQUIRE(keys.encoded(id) == bytes);
      auto it = held.find(bytes);
      if (it != held.end()) {
        REQUIRE(id == it->second.first);
        ++checked;
      }
      if (rng() % 2 == 0) {
        keys.Ref(id);
        auto& h = held[bytes];
        h.first = id;
        ++h.second;
      } else {
        keys.ReleaseIfUnused(id);  // as the engine does after each event
      }
    } else if (op < 9 && !held.empty()) {
      auto it = held.begin();
      std::advance(it, static_cast<long>(rng() % held.size()));
      keys.Unref(it->second.first);
      if (--it->second.second == 0) held.erase(it);
    } else if (op == 9 && rng() % 50 == 0) {
      keys.ClearCache();
    }
    if (step % 500 == 0) {
      std::set<uint32_t> ids;
      for (const auto& [b, h] : held) {
        CHECK(keys.encoded(h.first) == b);
        CHECK(keys.refs(h.first) >= static_cast<uint32_t>(h.second));
        ids.insert(h.first);
      }
      CHECK(ids.size() == held.size());
    }
  }
  CHECK(checked > 1000);
  for (const auto& [b, h] : held)
    for (int r = 0; r < h.second; ++r) keys.Unref(h.first);
  keys.ClearCache();
  CHECK(keys.size() == 0);
}

// Parses an event whose key is one string field, "service".
Event ParseService(EventParser* parser, const std::string& service_json) {
  std::string line = R"({"ts":"2024-05-01T10:00:00Z","service":")" + service_json + "\"}";
  const size_t size = line.size();
  line.append(EventParser::kPadding, ' ');
  Event ev;
  parser->Parse(line.data(), size, line.size(), &ev);
  REQUIRE(ev.kind == Event::Kind::kEvent);
  CHECK(ev.key_slot < KeyTable::kCacheSlots);
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
