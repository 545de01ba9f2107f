// Parallel apply's state (issue 30): operators that hold disjoint sets of keys (each the keys
// of its key groups) save together what one operator holding every key saves: the same section
// bytes and the same live rows, in incremental checkpoints and in whole ones. A state saved by
// any number of them restores into any number, which go on to write what the one would.
#include <catch2/catch.hpp>
#include <map>
#include <memory>

#include "keys/key_group.h"
#include "operator_harness.h"

namespace logtide {
namespace {

uint32_t ShardOf(const std::string& key, uint32_t shards) {
  std::string enc;
  EncodeValue(ValueRef::String(key), &enc);
  return WorkerOfGroup(KeyGroupOf(enc), shards);
}

// One operator's state as a store keeps it: the live rows after every checkpoint's changes.
void ApplyOps(const std::vector<StateOp>& ops, std::map<std::string, std::string>* rows) {
  for (const StateOp& op : ops) {
    switch (op.kind) {
      case StateOp::kPut:
        (*rows)[op.key] = op.value;
        break;
      case StateOp::kErase:
        rows->erase(op.key);
        break;
      case StateOp::kErasePrefix:
        for (auto it = rows->lower_bound(op.key);
             it != rows->end() && it->first.compare(0, op.key.size(), op.key) == 0;)
          it = rows->erase(it);
        break;
    }
  }
}

struct Job {
  WindowSpec spec;
  Nanos lateness;
  EmitMode mode;
  Nanos early;
};

// A job's operators: one holding no keys (as the reading thread's) and `n` shards.
struct Shards {
  Shards(const Job& j, uint32_t n) : keyless(j.spec, j.lateness, j.mode, j.early) {
    for (uint32_t i = 0; i < n; ++i) {
      all.push_back(std::make_unique<OperatorHarness>(j.spec, j.lateness, j.mode, j.early));
      all.back()->TrackChanges();
      ops.push_back(all.back()->op());
    }
  }
  void Apply(const StreamStep& s) {
    if (!s.advance) {
      all[ShardOf(s.key, static_cast<uint32_t>(all.size()))]->Add(s.key, s.t, s.x);
      return;
    }
    keyless.Advance(s.t);
    for (auto& h : all) h->Advance(s.t);
  }
  // Every shard's records, sorted (the merge's order is another test's: the engine's).
  std::vector<std::string> Take() {
    std::vector<std::string> r;
    for (auto& h : all) {
      for (std::string& line : h->Take()) r.push_back(std::move(line));
    }
    std::sort(r.begin(), r.end());
    return r;
  }
  OperatorHarness keyless;
  std::vector<std::unique_ptr<OperatorHarness>> all;
  std::vector<WindowOperator*> ops;
};

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

void CheckShards(const Job& job) {
  INFO("window " << job.spec.ToString() << ", mode " << static_cast<int>(job.mode) << ", lateness "
                 << job.lateness << ", early " << job.early);
  std::mt19937_64 rng(20261207);
  for (int trial = 0; trial < 30; ++trial) {
    const std::vector<StreamStep> steps = RandomSteps(&rng, 150, 24);
    const size_t cut1 = rng() % steps.size();
    const size_t cut2 = cut1 + rng() % (steps.size() - cut1);
    const uint32_t n = 2 + static_cast<uint32_t>(rng() % 4);
    const uint32_t m = 1 + static_cast<uint32_t>(rng() % 5);
    INFO("trial " << trial << ": " << n << " shards, checkpoints at " << cut1 << " and " << cut2
                  << " of " << steps.size() << ", restored into " << m);
    OperatorHarness one(job.spec, job.lateness, job.mode, job.early);
    one.TrackChanges();
    Shards shards(job, n);
    std::map<std::string, std::string> one_rows, shard_rows;
    std::string one_meta, shard_meta;
    size_t i = 0;
    // Two incremental checkpoints: what changed since the last, applied to the live rows.
    for (const size_t cut : {cut1, cut2}) {
      for (; i < cut; ++i) {
        ApplyStep(&one, steps[i]);
        shards.Apply(steps[i]);
      }
      // The compaction rule sees one operator's count of changes for any number of shards.
      CHECK(WindowOperator::RecordedChangesOf(shards.ops) == one.recorded_changes());
      std::vector<StateOp> one_ops, shard_ops;
      one_meta.clear();
      shard_meta.clear();
      REQUIRE(one.op()->Save(&one_meta, &one_ops, false).ok());
      REQUIRE(shards.keyless.op()->SaveShards(shards.ops, &shard_meta, &shard_ops, false).ok());
      ApplyOps(one_ops, &one_rows);
      ApplyOps(shard_ops, &shard_rows);
      CHECK(shard_meta == one_meta);
      CHECK(shard_rows == one_rows);
      // Every erasure comes before every put, and a pane is erased once.
      bool put_seen = false;
      for (const StateOp& op : shard_ops) {
        if (op.kind == StateOp::kPut) put_seen = true;
        if (op.kind == StateOp::kErasePrefix) CHECK_FALSE(put_seen);
      }
      CHECK(shard_ops.size() == one_ops.size());
    }
    CHECK(Sorted(one.Take()) == shards.Take());
    // A whole checkpoint of the shards is the same too.
    {
      std::vector<StateOp> whole;
      std::string meta;
      REQUIRE(shards.keyless.op()->SaveShards(shards.ops, &meta, &whole, true).ok());
      std::map<std::string, std::string> rows;
      ApplyOps(whole, &rows);
      CHECK(rows == one_rows);
      CHECK(meta == one_meta);
    }
    // Restored into m shards, they write what the one operator writes from here on.
    Shards restored(job, m);
    const WindowRows rows(one_rows.begin(), one_rows.end());
    WindowRows::Reader reader(rows);
    REQUIRE(restored.keyless.op()
                ->LoadShards(restored.ops, one_meta, WindowOperator::kVersion, &reader)
                .ok());
    CHECK(restored.keyless.op()->watermark() == one.op()->watermark());
    size_t open = 0;
    for (const WindowOperator* op : restored.ops) {
      CHECK(op->watermark() == one.op()->watermark());
      open += op->open_entries();
    }
    CHECK(open == one.open());
    for (; i < steps.size(); ++i) {
      ApplyStep(&one, steps[i]);
      restored.Apply(steps[i]);
    }
    CHECK(Sorted(one.Take()) == restored.Take());
  }
}

TEST_CASE("window shards: tumbling, final mode with lateness") {
  CheckShards(Job{Tumbling(10), 4, EmitMode::kFinal, 0});
}

TEST_CASE("window shards: sliding, final mode") {
  CheckShards(Job{Sliding(10, 5), 0, EmitMode::kFinal, 0});
}

TEST_CASE("window shards: tumbling, update mode with lateness (revisions kept per key)") {
  CheckShards(Job{Tumbling(10), 6, EmitMode::kUpdate, 0});
}

TEST_CASE("window shards: sliding, --early") {
  CheckShards(Job{Sliding(12, 4), 2, EmitMode::kFinal, 3});
}

TEST_CASE("window shards: a row of a damaged state goes nowhere") {
  Shards restored(Job{Tumbling(10), 0, EmitMode::kFinal, 0}, 3);
  std::map<std::string, std::string> bad{{"short", ""}};
  std::string meta;
  {
    OperatorHarness one(Tumbling(10), 0, EmitMode::kFinal);
    std::vector<StateOp> ops;
    REQUIRE(one.op()->Save(&meta, &ops, true).ok());
  }
  const WindowRows rows(bad.begin(), bad.end());
  WindowRows::Reader reader(rows);
  const Status s =
      restored.keyless.op()->LoadShards(restored.ops, meta, WindowOperator::kVersion, &reader);
  CHECK(s.code() == Status::Code::kCorruption);
}

}  // namespace
}  // namespace logtide
