#include "engine/counters.h"

#include <catch2/catch.hpp>

namespace logtide {
namespace {

// A job's counters and the component over them.
struct Job {
  EngineStats stats;
  uint64_t seq = 0;
  int reported = 0;
  CountersState counters;
  Job(bool filtered, bool overlapping)
      : counters(&stats, &seq, &reported, filtered, overlapping) {
    stats.ignored_values.assign(1, 0);
  }
  void Fill() {
    seq = 11;
    stats.lines = 10;
    stats.events = 7;
    stats.bad_lines = 1;
    stats.late_events = 2;
    stats.windows_emitted = 5;
    stats.ignored_values[0] = 3;
    stats.filtered = 4;
    stats.partly_late_events = 6;
    stats.missed_windows = 9;
    reported = 1;
  }
  std::string Save() {
    std::string data;
    std::vector<StateOp> log;
    REQUIRE(counters.Save(&data, &log, true).ok());
    return data;
  }
};

TEST_CASE("counters: each query writes the lowest version that holds its counters") {
  CHECK(Job(false, false).counters.version() == 1);
  CHECK(Job(true, false).counters.version() == 2);
  CHECK(Job(false, true).counters.version() == 3);
  CHECK(Job(true, true).counters.version() == 3);
}

TEST_CASE("counters: version 3 keeps the partly late events and the missed windows") {
  Job saved(true, true);
  saved.Fill();
  Job loaded(true, true);
  REQUIRE(loaded.counters.Load(saved.Save(), 3, {}).ok());
  CHECK(loaded.seq == 11);
  CHECK(loaded.stats.late_events == 2);
  CHECK(loaded.stats.filtered == 4);
  CHECK(loaded.stats.partly_late_events == 6);
  CHECK(loaded.stats.missed_windows == 9);
  CHECK(loaded.reported == 1);
}

TEST_CASE("issue28: overlapping windows read the version written before 3, counting from 0") {
  for (bool filtered : {false, true}) {
    Job old(filtered, false);  // what a logtide before version 3 wrote for this query
    old.Fill();
    Job loaded(filtered, true);
    const uint32_t version = filtered ? 2 : 1;
    REQUIRE(loaded.counters.Reads(version));
    REQUIRE(loaded.counters.Load(old.Save(), version, {}).ok());
    CHECK(loaded.seq == 11);
    CHECK(loaded.stats.lines == 10);
    CHECK(loaded.stats.late_events == 2);
    CHECK(loaded.stats.windows_emitted == 5);
    CHECK(loaded.stats.ignored_values[0] == 3);
    CHECK(loaded.stats.filtered == (filtered ? 4 : 0));
    CHECK(loaded.stats.partly_late_events == 0);
    CHECK(loaded.stats.missed_windows == 0);
    CHECK(loaded.reported == 1);
  }
}

TEST_CASE("counters: a version the query could not have written is not read") {
  CHECK_FALSE(Job(false, true).counters.Reads(2));  // written with --where
  CHECK_FALSE(Job(true, true).counters.Reads(1));   // written without
  CHECK_FALSE(Job(false, false).counters.Reads(3));
  CHECK_FALSE(Job(true, false).counters.Reads(3));
  CHECK_FALSE(Job(false, true).counters.Reads(4));
}

TEST_CASE("counters: a section cut short or with bytes left over is damaged") {
  Job saved(false, true);
  saved.Fill();
  const std::string data = saved.Save();
  Job loaded(false, true);
  CHECK(loaded.counters.Load(data.substr(0, data.size() - 1), 3, {}).code() ==
        Status::Code::kCorruption);
  CHECK(loaded.counters.Load(data + "x", 3, {}).code() == Status::Code::kCorruption);
  // Version 3's bytes read as version 1 have bytes left over.
  CHECK(loaded.counters.Load(data, 1, {}).code() == Status::Code::kCorruption);
}

}  // namespace
}  // namespace logtide
