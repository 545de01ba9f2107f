// Every operator round-trips through Snapshot/Restore at any point: a new operator restored
// from a snapshot emits, from then on, exactly what the original emits (issue 13).
#include <catch2/catch.hpp>
#include <random>

#include "operator_harness.h"

namespace logtide {
namespace {

void RoundTrip(const WindowSpec& spec, Nanos lateness, EmitMode mode, Nanos early = 0) {
  INFO("window " << spec.ToString());
  std::mt19937_64 rng(20261130);
  for (int trial = 0; trial < 60; ++trial) {
    const std::vector<StreamStep> steps = RandomSteps(&rng, 80, 4);
    const size_t cut = rng() % steps.size();
    OperatorHarness plain(spec, lateness, mode, early);  // never snapshotted, tracking nothing
    OperatorHarness original(spec, lateness, mode, early);
    original.TrackChanges();
    for (size_t i = 0; i < cut; ++i) {
      ApplyStep(&plain, steps[i]);
      ApplyStep(&original, steps[i]);
    }
    (void)original.Take();
    const std::vector<std::string> plain_before = plain.Take();
    const OperatorHarness::Saved saved = original.Save();
    OperatorHarness restored(spec, lateness, mode, early);
    restored.TrackChanges();
    INFO("trial " << trial << ", cut at step " << cut << " of " << steps.size());
    REQUIRE(restored.Load(saved));
    CHECK(restored.open() == original.open());
    // Panes set their timers from their state alone; merged sessions leave stale timers behind
    // (skipped when they go off) that a restored operator does not have.
    if (!spec.is_session()) CHECK(restored.pending_timers() == original.pending_timers());
    CHECK(restored.pending_timers() <= original.pending_timers());
    // A second snapshot of the restored operator is the same bytes.
    const OperatorHarness::Saved again = restored.Save();
    CHECK(again.rows == saved.rows);
    CHECK(again.meta == saved.meta);
    for (size_t i = cut; i < steps.size(); ++i) {
      ApplyStep(&plain, steps[i]);
      ApplyStep(&original, steps[i]);
      ApplyStep(&restored, steps[i]);
    }
    const std::vector<std::string> after = original.Take();
    CHECK(restored.Take() == after);
    CHECK(plain.Take() == after);  // a snapshot changes nothing that is emitted
    CHECK(original.open() == 0);
    CHECK(restored.open() == 0);
    CHECK(restored.pending_timers() == 0);
    CHECK(restored.live_slots() == 0);
  }
}

TEST_CASE("operators round-trip through snapshot and restore at any point") {
  for (EmitMode mode : {EmitMode::kFinal, EmitMode::kUpdate}) {
    for (Nanos lateness : {Nanos{0}, Nanos{6}}) {
      INFO("mode " << (mode == EmitMode::kFinal ? "final" : "update") << ", lateness " << lateness);
      RoundTrip(Tumbling(5), lateness, mode);
      RoundTrip(Sliding(6, 2), lateness, mode);
      RoundTrip(Session(3), lateness, mode);
    }
  }
}

TEST_CASE("operators with --early round-trip through snapshot and restore at any point") {
  for (EmitMode mode : {EmitMode::kFinal, EmitMode::kUpdate}) {
    for (Nanos lateness : {Nanos{0}, Nanos{6}}) {
      INFO("mode " << (mode == EmitMode::kFinal ? "final" : "update") << ", lateness " << lateness);
      RoundTrip(Tumbling(5), lateness, mode, 2);
      RoundTrip(Sliding(6, 2), lateness, mode, 1);
      RoundTrip(Session(3), lateness, mode, 2);
    }
  }
}

// A group key is one value per --by field, and each is a column of the record: a restored key
// with more or fewer values (a damaged row whose checksum was made to fit) is refused, where it
// used to be written past the record's columns (found by tests/fuzz/fuzz_state.cc).
TEST_CASE("a restored key with more or fewer values than --by fields is damaged (issue 16)") {
  for (const WindowSpec& spec : {Tumbling(5), Sliding(6, 2), Session(3)}) {
    INFO("window " << spec.ToString());
    OperatorHarness original(spec, 0, EmitMode::kFinal);
    original.TrackChanges();
    original.Add("a", 1);
    const OperatorHarness::Saved saved = original.Save();
    REQUIRE(saved.rows.size() == 1);
    std::string one_more;
    EncodeValue(ValueRef::Int(7), &one_more);
    // Panes' row keys are 8 bytes of pane start, then the key; sessions' are the key.
    const size_t at = spec.is_session() ? 0 : 8;
    for (const std::string& key :
         {saved.rows[0].first + one_more, saved.rows[0].first.substr(0, at)}) {
      OperatorHarness::Saved damaged = saved;
      damaged.rows[0].first = key;
      OperatorHarness restored(spec, 0, EmitMode::kFinal);
      CHECK_FALSE(restored.Load(damaged));
    }
    OperatorHarness restored(spec, 0, EmitMode::kFinal);
    CHECK(restored.Load(saved));
  }
}

// Restored state keeps the operators' own rules, or is damaged: a key's sessions sorted by
// start, disjoint and not touching; panes starting at multiples of their length. A row that
// broke them was taken: sessions that merged wrongly or never fired, panes counted in the wrong
// windows (found by tests/fuzz/fuzz_state.cc).
TEST_CASE("restored sessions that overlap and misaligned panes are damaged (issue 16)") {
  {
    OperatorHarness original(Session(3), 0, EmitMode::kFinal);
    original.TrackChanges();
    original.Add("a", 1);
    const OperatorHarness::Saved saved = original.Save();
    REQUIRE(saved.rows.size() == 1);
    // The row is u32 sessions, then each session; the same one twice overlaps itself.
    const std::string session = saved.rows[0].second.substr(4);
    OperatorHarness::Saved twice = saved;
    twice.rows[0].second = std::string("\x02\0\0\0", 4) + session + session;
    OperatorHarness restored(Session(3), 0, EmitMode::kFinal);
    CHECK_FALSE(restored.Load(twice));
  }
  for (const WindowSpec& spec : {Tumbling(5), Sliding(6, 2)}) {
    INFO("window " << spec.ToString());
    OperatorHarness original(spec, 0, EmitMode::kFinal);
    original.TrackChanges();
    original.Add("a", 7);
    const OperatorHarness::Saved saved = original.Save();
    REQUIRE(saved.rows.size() == 1);
    OperatorHarness::Saved moved = saved;
    // The start's last byte.
    moved.rows[0].first[7] = static_cast<char>(moved.rows[0].first[7] + 1);
    OperatorHarness restored(spec, 0, EmitMode::kFinal);
    CHECK_FALSE(restored.Load(moved));
  }
}

}  // namespace
}  // namespace logtide
