#include "engine/counters.h"

#include <catch2/catch.hpp>

#include "util/bytes.h"

namespace logtide {
namespace {

// A job's counters and the component over them.
struct Job {
  EngineStats stats;
  uint64_t seq = 0;
  int reported = 0;
  CountersState counters;
  Job() : counters(&stats, &seq, &reported) { stats.ignored_values.assign(1, 0); }
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
    REQUIRE(counters.Save(&data).ok());
    return data;
  }
};

// A section as f7668ee's logtide wrote it, by the grammar in counters.cc: version 1 (no
// --where), or version 2 (with --where: the filtered count after the rest).
std::string OldSection(uint32_t version) {
  std::string data;
  ByteWriter w(&data);
  w.U64(11);                                   // seq
  for (uint64_t v : {10, 7, 1, 2, 5}) w.U64(v);  // lines, events, bad, late, emitted
  w.U32(1);                                    // aggregates
  w.U64(3);                                    // its ignored values
  w.U32(1);                                    // bad lines reported
  if (version == 2) w.U64(4);                  // filtered
  return data;
}

TEST_CASE("counters: every query writes version 3 (issue 27: the code's version)") {
  CHECK(Job().counters.version() == 3);
  Job saved;
  saved.Fill();
  // u64 seq, 5 x u64, u32, u64, u32, then 3 x u64.
  CHECK(saved.Save().size() == 8 + 5 * 8 + 4 + 8 + 4 + 3 * 8);
}

TEST_CASE("counters: version 3 keeps every counter") {
  Job saved;
  saved.Fill();
  Job loaded;
  REQUIRE(loaded.counters.Load(saved.Save(), 3).ok());
  CHECK(loaded.seq == 11);
  CHECK(loaded.stats.late_events == 2);
  CHECK(loaded.stats.filtered == 4);
  CHECK(loaded.stats.partly_late_events == 6);
  CHECK(loaded.stats.missed_windows == 9);
  CHECK(loaded.reported == 1);
}

TEST_CASE("counters: versions 1 and 2 (f7668ee) are read, the counters they lack from 0") {
  for (uint32_t version : {1u, 2u}) {
    INFO("version " << version);
    Job loaded;
    REQUIRE(loaded.counters.Reads(version));
    REQUIRE(loaded.counters.Load(OldSection(version), version).ok());
    CHECK(loaded.seq == 11);
    CHECK(loaded.stats.lines == 10);
    CHECK(loaded.stats.events == 7);
    CHECK(loaded.stats.bad_lines == 1);
    CHECK(loaded.stats.late_events == 2);
    CHECK(loaded.stats.windows_emitted == 5);
    CHECK(loaded.stats.ignored_values[0] == 3);
    CHECK(loaded.stats.filtered == (version == 2 ? 4 : 0));
    CHECK(loaded.stats.partly_late_events == 0);
    CHECK(loaded.stats.missed_windows == 0);
    CHECK(loaded.reported == 1);
  }
}

TEST_CASE("counters: a version from a newer logtide is not read") {
  CHECK_FALSE(Job().counters.Reads(0));
  CHECK_FALSE(Job().counters.Reads(4));
}

TEST_CASE("counters: a section cut short or with bytes left over is damaged") {
  Job saved;
  saved.Fill();
  const std::string data = saved.Save();
  Job loaded;
  CHECK(loaded.counters.Load(data.substr(0, data.size() - 1), 3).code() ==
        Status::Code::kCorruption);
  CHECK(loaded.counters.Load(data + "x", 3).code() == Status::Code::kCorruption);
  // Version 3's bytes read as version 1 or 2 have bytes left over; version 1's as 2 are short.
  CHECK(loaded.counters.Load(data, 1).code() == Status::Code::kCorruption);
  CHECK(loaded.counters.Load(data, 2).code() == Status::Code::kCorruption);
  CHECK(loaded.counters.Load(OldSection(1), 2).code() == Status::Code::kCorruption);
}

}  // namespace
}  // namespace logtide

namespace logtide {
namespace {

TEST_CASE("a run's counters are the job's less the earlier runs'; its own bytes stay") {
  EngineStats earlier;
  earlier.lines = 10;
  earlier.events = 7;
  earlier.bad_lines = 1;
  earlier.late_events = 2;
  earlier.partly_late_events = 1;
  earlier.missed_windows = 3;
  earlier.windows_emitted = 4;
  earlier.filtered = 5;
  earlier.ignored_values = {6};
  EngineStats job = earlier;
  job.lines += 100;
  job.events += 90;
  job.bad_lines += 2;
  job.late_events += 3;
  job.partly_late_events += 4;
  job.missed_windows += 5;
  job.windows_emitted += 6;
  job.filtered += 7;
  job.ignored_values[0] += 8;
  job.bytes_read = 4096;  // this run's
  job.checkpoints = 2;    // this run's
  const EngineStats run = job.Since(earlier);
  CHECK(run.lines == 100);
  CHECK(run.events == 90);
  CHECK(run.bad_lines == 2);
  CHECK(run.late_events == 3);
  CHECK(run.partly_late_events == 4);
  CHECK(run.missed_windows == 5);
  CHECK(run.windows_emitted == 6);
  CHECK(run.filtered == 7);
  CHECK(run.ignored_values == std::vector<uint64_t>{8});
  CHECK(run.bytes_read == 4096);
  CHECK(run.checkpoints == 2);
}

TEST_CASE("counters: DecodeCounters reads every counter of every version, for inspect") {
  Job saved;
  saved.Fill();
  SavedCounters c;
  REQUIRE(DecodeCounters(saved.Save(), 3, &c));
  CHECK(c.version == 3);
  CHECK(c.seq == 11);
  CHECK(c.stats.lines == 10);
  CHECK(c.stats.events == 7);
  CHECK(c.stats.bad_lines == 1);
  CHECK(c.stats.late_events == 2);
  CHECK(c.stats.windows_emitted == 5);
  CHECK(c.stats.ignored_values == std::vector<uint64_t>{3});
  CHECK(c.stats.filtered == 4);
  CHECK(c.stats.partly_late_events == 6);
  CHECK(c.stats.missed_windows == 9);
  CHECK(c.reported == 1);
  for (uint32_t version : {1u, 2u}) {
    INFO("version " << version);
    SavedCounters old;
    REQUIRE(DecodeCounters(OldSection(version), version, &old));
    CHECK(old.version == version);
    CHECK(old.stats.ignored_values == std::vector<uint64_t>{3});
    CHECK(old.stats.filtered == (version == 2 ? 4 : 0));
    CHECK(old.stats.missed_windows == 0);
  }
}

TEST_CASE("counters: DecodeCounters sizes the ignored values by the section, not by a query") {
  // Three aggregates, where Job has one: inspect has no query to size them by.
  std::string data;
  ByteWriter w(&data);
  w.U64(1);
  for (int i = 0; i < 5; ++i) w.U64(0);
  w.U32(3);
  for (uint64_t v : {7, 8, 9}) w.U64(v);
  w.U32(0);
  for (int i = 0; i < 3; ++i) w.U64(0);
  SavedCounters c;
  REQUIRE(DecodeCounters(data, 3, &c));
  CHECK(c.stats.ignored_values == std::vector<uint64_t>{7, 8, 9});
  // Load still refuses a section whose aggregates are not the query's.
  CHECK(Job().counters.Load(data, 3).code() == Status::Code::kCorruption);
}

TEST_CASE("counters: DecodeCounters refuses damage without allocating for it") {
  Job saved;
  saved.Fill();
  const std::string data = saved.Save();
  SavedCounters c;
  CHECK_FALSE(DecodeCounters(data.substr(0, data.size() - 1), 3, &c));
  CHECK_FALSE(DecodeCounters(data + "x", 3, &c));
  CHECK_FALSE(DecodeCounters(data, 4, &c));
  CHECK_FALSE(DecodeCounters(data, 0, &c));
  // An aggregate count of 2^32-1: more values than bytes, damage rather than a size.
  std::string huge = data;
  const uint32_t n = 0xFFFFFFFF;
  huge.replace(48, 4, reinterpret_cast<const char*>(&n), 4);
  CHECK_FALSE(DecodeCounters(huge, 3, &c));
}

}  // namespace
}  // namespace logtide
