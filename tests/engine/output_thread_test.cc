#include "engine/output_thread.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engine/result_sink.h"
#include "output/output_file.h"
#include "output/record_writer.h"

namespace logtide {
namespace {

constexpr Nanos kMinute = 60'000'000'000;

std::string TempPath() {
  char name[] = "/tmp/logtide_output_XXXXXX";
  int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  close(fd);
  return name;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Window state for records keyed by one string: count, sum(x), first(s), avg(x).
struct State {
  State() : acc(Specs()) {}
  static std::vector<AggSpec> Specs() {
    std::vector<AggSpec> specs(4);
    const char* texts[] = {"count", "sum(x)", "first(s)", "avg(x)"};
    for (size_t i = 0; i < specs.size(); ++i) REQUIRE(ParseAggSpec(texts[i], &specs[i]).ok());
    return specs;
  }
  // A window result for `key` holding one event per value in xs (x and s from each).
  WindowResult Result(Nanos start, const std::string& key, const std::vector<ValueRef>& xs,
                      const std::vector<ValueRef>& ss, int64_t revision = -1) {
    std::string enc;
    EncodeValue(ValueRef::String(key), &enc);
    const uint32_t id = keys.Intern(enc);
    keys.Ref(id);
    const uint32_t slot = acc.Allocate();
    for (size_t i = 0; i < xs.size(); ++i) {
      ValueRef in[4] = {ValueRef::Null(), xs[i], ss[i], xs[i]};
      uint64_t ignored[4] = {};
      acc.Add(slot, in, start, ++seq, ignored);
    }
    return WindowResult{start, start + kMinute, id, slot, revision};
  }
  KeyTable keys;
  Accumulators acc;
  uint64_t seq = 0;
};

TEST_CASE("OutputThread: writes each firing sorted, every kind of result, in firing order") {
  State st;
  const std::string path = TempPath();
  OutputFile out;
  REQUIRE(out.Open(path).ok());
  RecordWriter writer(OutputFormat::kNdjson, {"k"}, {"n", "sum", "first", "avg"}, true, &out);
  {
    OutputThread thread(&writer, st.acc.num_aggs());
    // Firing 1, keys out of order: "b" has ints, a string with a quote; "a" has no x and no s.
    std::vector<WindowResult> f1 = {st.Result(0, "b", {ValueRef::Int(1), ValueRef::Int(2)},
                                              {ValueRef::String("x\"y"), ValueRef::String("z")}, 0),
                                    st.Result(0, "a", {ValueRef::Null()}, {ValueRef::Null()}, 0)};
    thread.Add(f1, st.keys, st.acc);
    // Firing 2: an earlier window than firing 1's (an update-mode revision); doubles.
    std::vector<WindowResult> f2 = {st.Result(-kMinute, "c",
                                              {ValueRef::Number(0.5), ValueRef::Number(0.25)},
                                              {ValueRef::String("s"), ValueRef::String("t")}, 1)};
    thread.Add(f2, st.keys, st.acc);
    thread.Drain();
    REQUIRE(out.Flush().ok());
    CHECK(ReadFile(path) ==
          "{\"window_start\":\"1970-01-01T00:00:00Z\",\"window_end\":\"1970-01-01T00:01:00Z\","
          "\"k\":\"a\",\"n\":1,\"sum\":null,\"first\":null,\"avg\":null,\"revision\":0,"
          "\"phase\":\"on_time\",\"final\":false}\n"
          "{\"window_start\":\"1970-01-01T00:00:00Z\",\"window_end\":\"1970-01-01T00:01:00Z\","
          "\"k\":\"b\",\"n\":2,\"sum\":3,\"first\":\"x\\\"y\",\"avg\":1.5,\"revision\":0,"
          "\"phase\":\"on_time\",\"final\":false}\n"
          "{\"window_start\":\"1969-12-31T23:59:00Z\",\"window_end\":\"1970-01-01T00:00:00Z\","
          "\"k\":\"c\",\"n\":2,\"sum\":0.75,\"first\":\"s\",\"avg\":0.375,\"revision\":1,"
          "\"phase\":\"on_time\",\"final\":false}\n");
  }
  REQUIRE(out.Close().ok());
  unlink(path.c_str());
}

TEST_CASE("OutputThread: many firings over several batches give the bytes of writing at once") {
  State st;
  std::mt19937_64 rng(3);
  std::vector<std::vector<WindowResult>> firings;
  for (int f = 0; f < 12; ++f) {
    // Mostly small firings, two of 20k keys (more than one batch's worth of bytes each).
    const int keys = f == 4 || f == 9 ? 20000 : static_cast<int>(rng() % 50) + 1;
    std::vector<WindowResult> firing;
    for (int k = 0; k < keys; ++k) {
      const std::string key = "user" + std::to_string(rng() % 1000000) + "-" + std::to_string(k);
      const int64_t x = static_cast<int64_t>(rng() % 1000);
      firing.push_back(st.Result(f * kMinute, key, {ValueRef::Int(x)},
                                 {ValueRef::String(key.substr(0, rng() % 8))}));
    }
    firings.push_back(std::move(firing));
  }

  // The reference: each firing sorted and written on this thread.
  const std::string want_path = TempPath(), got_path = TempPath();
  {
    OutputFile out;
    REQUIRE(out.Open(want_path).ok());
    RecordWriter writer(OutputFormat::kCsv, {"k"}, {"n", "sum", "first", "avg"}, false, &out);
    writer.WriteHeader();
    uint64_t emitted = 0;
    ResultSink sink(&st.keys, &st.acc, &emitted);
    sink.set_writer(&writer);
    for (const auto& firing : firings) sink.EmitWindows(firing, FiringOrder{});
    REQUIRE(out.Close().ok());
  }
  {
    OutputFile out;
    REQUIRE(out.Open(got_path).ok());
    RecordWriter writer(OutputFormat::kCsv, {"k"}, {"n", "sum", "first", "avg"}, false, &out);
    writer.WriteHeader();
    OutputThread thread(&writer, st.acc.num_aggs());
    for (size_t f = 0; f < firings.size(); ++f) {
      thread.Add(firings[f], st.keys, st.acc);
      if (f == 6) {
        // A drain in the middle (a checkpoint): everything so far is in the output.
        thread.Drain();
        REQUIRE(out.Flush().ok());
        const std::string so_far = ReadFile(got_path);
        CHECK(ReadFile(want_path).compare(0, so_far.size(), so_far) == 0);
        CHECK(so_far.size() > 20000 * 10);
      }
    }
    // The destructor writes the rest.
  }
  const std::string want = ReadFile(want_path), got = ReadFile(got_path);
  CHECK(want.size() > 40000 * 10);
  CHECK(got == want);
  unlink(want_path.c_str());
  unlink(got_path.c_str());
}

// Writes `firings` to a new file in `format`: on this thread with the ResultSink
// (--threads 1), or on the OutputThread (with worker threads). Returns the file's bytes.
std::string WriteAll(State* st, const std::vector<std::vector<WindowResult>>& firings,
                     OutputFormat format, bool output_thread) {
  const std::string path = TempPath();
  {
    OutputFile out;
    REQUIRE(out.Open(path).ok());
    RecordWriter writer(format, {"k"}, {"n", "sum", "first", "avg"}, true, &out);
    writer.WriteHeader();
    if (output_thread) {
      OutputThread thread(&writer, st->acc.num_aggs());
      for (const auto& firing : firings) thread.Add(firing, st->keys, st->acc);
    } else {
      uint64_t emitted = 0;
      ResultSink sink(&st->keys, &st->acc, &emitted);
      sink.set_writer(&writer);
      for (const auto& firing : firings) sink.EmitWindows(firing, FiringOrder{});
      CHECK(emitted == 5);
    }
    REQUIRE(out.Close().ok());
  }
  const std::string bytes = ReadFile(path);
  unlink(path.c_str());
  return bytes;
}

TEST_CASE("OutputThread: every kind of result gives the applying thread's bytes, both formats") {
  State st;
  const int64_t max = std::numeric_limits<int64_t>::max();
  const std::string nul("a\0b", 3);
  // A sum past int64 (a 128-bit result), a string holding 0x00 as key and as first(s), an
  // object as first(s), a double average, and nulls; an update-mode revision per record.
  std::vector<std::vector<WindowResult>> firings = {
      {st.Result(0, "z", {ValueRef::Int(max), ValueRef::Int(max)},
                 {ValueRef::String(nul), ValueRef::Null()}, 2),
       st.Result(0, nul, {ValueRef::Number(0.5)}, {ValueRef::Raw("{\"a\":[1,\"x,y\"]}")}, 0),
       st.Result(0, "", {ValueRef::Null()}, {ValueRef::Null()}, 1)},
      {st.Result(kMinute, "q\"u", {ValueRef::Int(-3), ValueRef::Number(0.25)},
                 {ValueRef::String("line\nbreak"), ValueRef::String("s")}, 0),
       st.Result(-kMinute, "late", {ValueRef::Int(1)}, {ValueRef::Bool(true)}, 4)},
  };
  for (OutputFormat format : {OutputFormat::kNdjson, OutputFormat::kCsv}) {
    const std::string want = WriteAll(&st, firings, format, false);
    CHECK(WriteAll(&st, firings, format, true) == want);
    // The cases above reach the output (the record of "z" has the sum of two int64 maxima).
    CHECK(want.find("18446744073709551614") != std::string::npos);
    CHECK(want.find(format == OutputFormat::kCsv ? nul : "a\\u0000b") != std::string::npos);
    CHECK(std::count(want.begin(), want.end(), '\n') >= 5);
  }
}

}  // namespace
}  // namespace logtide
