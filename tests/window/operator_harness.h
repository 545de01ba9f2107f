// Drives a WindowOperator directly and records what it emits, through the engine's ResultSink
// (sorted as the engine sorts), as text lines: "[start,end) key N S rev=R" (count, sum(x)),
// with revisions then " early" or " late" for those phases (nothing for on time) and " final"
// for a window's last record. Times are plain integers.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "agg/accumulators.h"
#include "keys/key_table.h"
#include "engine/result_sink.h"
#include "json/json_text.h"
#include "window/window_operator.h"

namespace logtide {

class OperatorHarness : public ResultEmitter, public RecordSink {
 public:
  // `early_every`: --early-every's interval, on the clock StartClock and Clock give.
  OperatorHarness(WindowSpec spec, Nanos lateness, EmitMode mode, Nanos early = 0,
                  Nanos early_every = 0)
      : acc_(Specs()), sink_(&keys_, &acc_, &emitted_) {
    sink_.set_writer(this);
    op_ = WindowOperator::Create(spec, lateness, mode, early,
                                 WindowOperator::Deps{&keys_, &acc_, this, ignored_, 1},
                                 early_every);
  }

  // Adds an event with key `key` and value x at time t; returns whether it was accepted.
  bool Add(const std::string& key, Nanos t, int64_t x = 1) {
    return AddCounted(key, t, x).accepted();
  }
  // Adds an event as Add does; returns what the operator said of its windows as
  // "windows=N missed=M".
  std::string AddMissed(const std::string& key, Nanos t, int64_t x = 1) {
    const AddResult r = AddCounted(key, t, x);
    return fmt::format("windows={} missed={}", r.windows, r.missed);
  }
  void Advance(Nanos w) { op_->OnWatermark(w); }
  // The read loop starts at processing time `now` (after a Load), then ticks at `now`: returns
  // whether the --early-every trigger fired.
  void StartClock(Nanos now) { op_->StartProcessingTime(now); }
  bool Clock(Nanos now) { return op_->OnProcessingTime(now); }
  // Returns and clears the records emitted so far.
  std::vector<std::string> Take() {
    std::vector<std::string> r;
    r.swap(out_);
    return r;
  }
  size_t keys() const { return keys_.size(); }
  size_t open() const { return op_->open_entries(); }
  size_t recorded_changes() const { return op_->recorded_changes(); }
  // Records changes for checkpoints, as with --state. REQUIRES: before the first Add.
  void TrackChanges() { op_->set_track_changes(true); }
  size_t live_slots() const { return acc_.live(); }

  // A whole snapshot, as a compacting checkpoint stores it: rows by key and the operator's
  // section. REQUIRES: TrackChanges().
  struct Saved {
    std::vector<std::pair<std::string, std::string>> rows;
    std::string meta;
  };
  Saved Save() {
    std::vector<StateOp> ops;
    Saved s;
    REQUIRE(op_->Save(&s.meta, &ops, true).ok());
    std::map<std::string, std::string> live;
    for (StateOp& op : ops) {
      if (op.kind == StateOp::kPut) live[op.key] = std::move(op.value);
    }
    s.rows.assign(live.begin(), live.end());
    return s;
  }
  // Restores a snapshot into this harness's new operator. Returns false when it is refused.
  bool Load(const Saved& s) {
    const WindowRows rows(s.rows.begin(), s.rows.end());
    WindowRows::Reader reader(rows);
    return op_->Load(s.meta, op_->version(), &reader).ok();
  }
  size_t pending_timers() const { return op_->pending_timers(); }
  WindowOperator* op() { return op_.get(); }

  // The most records handed over in one EmitWindows call so far.
  size_t largest_call() const { return largest_call_; }

  void EmitWindows(const std::vector<WindowResult>& results, const FiringOrder& order) override {
    largest_call_ = std::max(largest_call_, results.size());
    sink_.EmitWindows(results, order);
  }
  void BeginRecord(Nanos start, Nanos end) override { line_ = fmt::format("[{},{})", start, end); }
  void Key(const ValueRef& v) override { line_ += fmt::format(" {}", v.s); }
  void EndRecord(const RecordRevision& revision) override {
    if (revision.number >= 0) {
      line_ += fmt::format(" rev={}", revision.number);
      if (revision.phase != RecordPhase::kOnTime)
        line_ += std::string(" ") + RecordPhaseName(revision.phase);
      if (revision.final) line_ += " final";
    }
    out_.push_back(line_);
  }
  void Null() override { line_ += " null"; }
  void Int(__int128 v) override {
    line_ += " ";
    AppendInt128(v, &line_);
  }
  void Double(double v) override {
    line_ += " ";
    AppendDouble(v, &line_);
  }
  void Value(const ValueRef& v) override {
    line_ += " ";
    AppendJsonValue(v, &line_);
  }

 private:
  AddResult AddCounted(const std::string& key, Nanos t, int64_t x) {
    std::string enc;
    EncodeValue(ValueRef::String(key), &enc);
    uint32_t id = keys_.Intern(enc);
    ValueRef in[2] = {ValueRef::Null(), ValueRef::Int(x)};
    const AddResult r = op_->Add(KeyedEvent{id, t, in, ++seq_});
    keys_.ReleaseIfUnused(id);
    return r;
  }
  static std::vector<AggSpec> Specs() {
    AggSpec count, sum;
    (void)ParseAggSpec("count", &count);
    (void)ParseAggSpec("sum(x)", &sum);
    return {count, sum};
  }
  KeyTable keys_;
  Accumulators acc_;
  uint64_t emitted_ = 0;
  ResultSink sink_;  // after keys_ and acc_
  std::unique_ptr<WindowOperator> op_;
  uint64_t ignored_[2] = {0, 0};
  uint64_t seq_ = 0;
  std::vector<std::string> out_;
  std::string line_;
  size_t largest_call_ = 0;
};

// One step of a random stream: a watermark advance to t, or an event of `key` at t with x.
struct StreamStep {
  bool advance;
  std::string key;
  Nanos t;
  int64_t x;
};

// n events over `keys` keys ("a", "b", ...; at most 26) with disorder, and a watermark that
// follows them with a delay; the stream ends at +infinity, so everything fires.
inline std::vector<StreamStep> RandomSteps(std::mt19937_64* rng, int n, int keys) {
  std::vector<StreamStep> steps;
  Nanos max_t = 0, w = kMinusInfinity;
  for (int i = 0; i < n; ++i) {
    const Nanos t = std::max<Nanos>(0, max_t + static_cast<Nanos>((*rng)() % 9) - 5);
    max_t = std::max(max_t, t);
    const char key = static_cast<char>('a' + (*rng)() % static_cast<uint64_t>(keys));
    steps.push_back(StreamStep{false, std::string(1, key), t, static_cast<int64_t>((*rng)() % 100)});
    if ((*rng)() % 3 == 0 && max_t - 3 > w) {
      w = max_t - 3;
      steps.push_back(StreamStep{true, "", w, 0});
    }
  }
  steps.push_back(StreamStep{true, "", kPlusInfinity, 0});
  return steps;
}

// Applies one step to h.
inline void ApplyStep(OperatorHarness* h, const StreamStep& s) {
  if (s.advance) {
    h->Advance(s.t);
  } else {
    h->Add(s.key, s.t, s.x);
  }
}

inline WindowSpec Tumbling(Nanos size) {
  return WindowSpec{WindowSpec::Kind::kTumbling, size, size, 0};
}
inline WindowSpec Sliding(Nanos size, Nanos slide) {
  return WindowSpec{WindowSpec::Kind::kSliding, size, slide, 0};
}
inline WindowSpec Session(Nanos gap) { return WindowSpec{WindowSpec::Kind::kSession, 0, 0, gap}; }

}  // namespace logtide
