// logtide_gen: a deterministic, seeded generator of realistic NDJSON access logs.
//
//   logtide_gen [--lines N] [--seed S] [--users U] [--disorder-ms D] [--late-fraction F]
//               [--start EPOCH_S] [--rate-per-s R]
//
// Events advance at --rate-per-s on average (exponential gaps), with timestamps shifted back by
// up to --disorder-ms (bounded disorder) and a --late-fraction of events shifted back by 1 to 10
// minutes (very late). Lines are about 200 bytes. Same flags, same bytes.
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "time/timestamp.h"

namespace {

const char* kServices[] = {"api",  "web",   "auth",  "billing", "search",
                           "cart", "media", "email", "admin",   "gateway"};
const char* kMethods[] = {"GET", "GET", "GET", "POST", "PUT", "DELETE"};
const char* kPaths[] = {"/v1/items",          "/v1/items/42",   "/v1/users/me", "/login",
                        "/v1/search?q=shoes", "/static/app.js", "/v1/cart",     "/health",
                        "/v1/orders",         "/v1/payments"};

int64_t Arg(int argc, char** argv, const char* name, int64_t def) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return std::strtoll(argv[i + 1], nullptr, 10);
  }
  return def;
}

double ArgF(int argc, char** argv, const char* name, double def) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return std::strtod(argv[i + 1], nullptr);
  }
  return def;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t lines = Arg(argc, argv, "--lines", 1000000);
  const uint64_t seed = static_cast<uint64_t>(Arg(argc, argv, "--seed", 1));
  const int64_t users = Arg(argc, argv, "--users", 200000);
  const int64_t disorder_ms = Arg(argc, argv, "--disorder-ms", 0);
  const double late_fraction = ArgF(argc, argv, "--late-fraction", 0);
  const int64_t start = Arg(argc, argv, "--start", 1714557600);  // 2024-05-01T10:00:00Z
  const double rate = ArgF(argc, argv, "--rate-per-s", 2000);

  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::exponential_distribution<double> gap(rate);
  double now = static_cast<double>(start);
  std::string ts;
  for (int64_t i = 0; i < lines; ++i) {
    now += gap(rng);
    int64_t t = static_cast<int64_t>(now * 1000);  // ms
    if (disorder_ms > 0) t -= static_cast<int64_t>(rng() % static_cast<uint64_t>(disorder_ms));
    if (late_fraction > 0 && unit(rng) < late_fraction)
      t -= 60'000 + static_cast<int64_t>(rng() % 540'000);
    ts.clear();
    logtide::AppendRfc3339(t * 1'000'000, &ts);
    // Zipf-like skew: a few services and users carry most traffic.
    const char* service = kServices[static_cast<size_t>(std::pow(unit(rng), 2.0) * 10)];
    int host = static_cast<int>(rng() % 64);
    int64_t user = static_cast<int64_t>(std::pow(unit(rng), 3.0) * static_cast<double>(users));
    double r = unit(rng);
    int status = r < 0.90 ? 200 : r < 0.95 ? 404 : r < 0.98 ? 500 : 503;
    double latency = std::round(std::exp(2.5 + 1.2 * std::sqrt(-2 * std::log(unit(rng) + 1e-12)) *
                                                   std::cos(6.283185 * unit(rng))) *
                                100) /
                     100;
    int64_t bytes = 200 + static_cast<int64_t>(rng() % 20000);
    int n = std::fprintf(stdout,
                         "{\"ts\":\"%s\",\"service\":\"%s\",\"host\":\"h%02d.dc1\",\"method\":\"%"
                         "s\",\"path\":\"%s\","
                         "\"status\":%d,\"latency_ms\":%.2f,\"bytes\":%" PRId64
                         ",\"user\":\"u%06" PRId64
                         "\","
                         "\"trace_id\":\"%016" PRIx64 "\"}\n",
                         ts.c_str(), service, host, kMethods[rng() % 6], kPaths[rng() % 10], status,
                         latency, bytes, user, static_cast<uint64_t>(rng()));
    if (n < 0) return 1;
  }
  return 0;
}
