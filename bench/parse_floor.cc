// parse_floor: the simdjson floor for the benchmark's job. Reads an NDJSON file in large
// buffers, runs one On-Demand iterate per line and extracts ts, service, bytes and latency_ms
// with find_field, and does nothing else. Prints the sum of bytes so the work is not optimised
// away. Built with the same flags as logtide, so the same simdjson kernel runs.
#include <fcntl.h>
#include <simdjson.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: parse_floor FILE\n");
    return 2;
  }
  int fd = open(argv[1], O_RDONLY);
  if (fd < 0) return 1;
  simdjson::ondemand::parser parser;
  const size_t cap = 1 << 20;
  std::vector<char> buf(cap + simdjson::SIMDJSON_PADDING);
  size_t begin = 0, end = 0;
  long long lines = 0, sum = 0, errors = 0;
  size_t service_len = 0;
  double lat = 0;
  while (true) {
    char* nl = static_cast<char*>(std::memchr(buf.data() + begin, '\n', end - begin));
    if (nl == nullptr) {
      std::memmove(buf.data(), buf.data() + begin, end - begin);
      end -= begin;
      begin = 0;
      ssize_t n = read(fd, buf.data() + end, cap - end);
      if (n <= 0) break;
      end += static_cast<size_t>(n);
      continue;
    }
    size_t len = static_cast<size_t>(nl - (buf.data() + begin));
    simdjson::ondemand::document doc;
    if (parser.iterate(buf.data() + begin, len, buf.size() - begin).get(doc)) {
      ++errors;
    } else {
      std::string_view ts, service;
      int64_t bytes;
      double l;
      if (doc["ts"].get_string().get(ts) || doc["service"].get_string().get(service) ||
          doc["bytes"].get_int64().get(bytes) || doc["latency_ms"].get_double().get(l)) {
        ++errors;
      } else {
        sum += bytes;
        lat += l;
        service_len += service.size() + ts.size();
      }
    }
    ++lines;
    begin += len + 1;
  }
  std::printf("%lld lines %lld errors %lld bytes %zu %.0f\n", lines, errors, sum, service_len, lat);
  return 0;
}
