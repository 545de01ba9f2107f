#include "apply/parallel_apply.h"

#include "keys/key_group.h"
#include "keys/key_table.h"

namespace logtide {

namespace {

// A batch is handed over at this many operations, or when its arena is full: large enough
// that a hand-off (a lock, a wake-up) is rare against the events it carries, small enough
// that the workers start soon and a batch's firings stay small.
// The aggregates' inputs count too (a query of 1000 aggregates hands over 1000 values an
// event): a batch stays within about 3 MB however many aggregates there are.
constexpr size_t kBatchOps = 4096;
constexpr size_t kBatchValues = 32768;
constexpr size_t kArenaBytes = 256 << 10;

}  // namespace

// One apply worker: its keys, accumulators and window operator, and the logs of the firings
// it made in the batches not merged yet (batch b's in logs[b % kBatches]).
class ParallelApply::Worker final : public ResultEmitter {
 public:
  Worker(uint32_t index, const std::vector<AggSpec>& aggs, size_t key_fields,
         const OperatorFactory& make_operator)
      : index_(index), acc_(aggs), wrong_type_(aggs.size(), 0) {
    op_ = make_operator(WindowOperator::Deps{&keys_, &acc_, this, wrong_type_.data(), key_fields});
  }

  void EmitWindows(const std::vector<WindowResult>& results, const FiringOrder& order) override {
    if (observer_ != nullptr) observer_->Observe(results);
    log_->Add(results, keys_, acc_, FiringTag{op_index_, order});
  }
  const Accumulators& acc() const { return acc_; }
  void set_observer(FiringObserver* o) { observer_ = o; }

  // Applies the operations of `b` that are this worker's (its events, and every rise and stop),
  // logging its firings to `log`.
  void Apply(Batch* b, FiringLog* log) {
    log_ = log;
    const uint32_t n = static_cast<uint32_t>(b->ops.size());
    for (uint32_t i = 0; i < n; ++i) {
      Op& o = b->ops[i];
      op_index_ = i;
      switch (o.kind) {
        case Op::kAdd: {
          if (o.worker != index_) break;
          const uint32_t key = keys_.Intern(std::string_view(o.key, o.key_size), o.key_hash,
                                            o.key_token, o.key_slot);
          o.result = op_->Add(KeyedEvent{key, o.time, b->values.data() + o.inputs, o.seq});
          if (o.result.accepted()) load_.Add(keys_, key, o.seq);
          keys_.ReleaseIfUnused(key);
          break;
        }
        case Op::kRise:
          op_->OnWatermark(o.time);
          break;
        case Op::kEmitOpen:
          op_->EmitOpen();
          break;
      }
    }
    open_entries_.store(op_->open_entries(), std::memory_order_relaxed);
  }

  FiringLog logs[kBatches];
  uint64_t done = 0;  // batches applied (under the owner's mutex)
  std::thread thread;
  std::atomic<size_t> open_entries_{0};
  const std::vector<uint64_t>& wrong_type() const { return wrong_type_; }
  WindowOperator* op() const { return op_.get(); }
  const GroupLoad& load() const { return load_; }
  GroupLoad& load() { return load_; }

 private:
  uint32_t index_;
  KeyTable keys_;
  GroupLoad load_;  // its groups' events (its own keys only)
  Accumulators acc_;
  std::vector<uint64_t> wrong_type_;
  std::unique_ptr<WindowOperator> op_;
  FiringLog* log_ = nullptr;
  uint32_t op_index_ = 0;
  FiringObserver* observer_ = nullptr;
};

ParallelApply::ParallelApply(uint32_t workers, const std::vector<AggSpec>& aggs,
                             size_t key_fields, const OperatorFactory& make_operator,
                             RecordSink* sink)
    : workers_(workers), num_aggs_(aggs.size()), sink_(sink), wrong_counted_(aggs.size(), 0) {
  for (auto& b : batches_) b = std::make_unique<Batch>();
  for (uint32_t w = 0; w < workers_; ++w)
    worker_.push_back(std::make_unique<Worker>(w, aggs, key_fields, make_operator));
  for (uint32_t w = 0; w < workers_; ++w) {
    Worker* worker = worker_[w].get();
    worker->thread = std::thread([this, worker] {
      for (uint64_t b = 0;; ++b) {
        Batch* batch;
        {
          std::unique_lock<std::mutex> lk(mu_);
          // Batch b's log slot is free once batch b - kBatches is written.
          work_cv_.wait(lk, [&] { return stop_ || (sealed_ > b && merged_ + kBatches > b); });
          if (!(sealed_ > b && merged_ + kBatches > b)) return;
          batch = batches_[b % kBatches].get();
        }
        FiringLog* log = &worker->logs[b % kBatches];
        log->Clear();
        worker->Apply(batch, log);
        {
          std::lock_guard<std::mutex> lk(mu_);
          worker->done = b + 1;
          --batch->pending;
        }
        free_cv_.notify_all();
        merge_cv_.notify_one();
      }
    });
  }
  merge_thread_ = std::thread([this] { Merge(); });
}

ParallelApply::~ParallelApply() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  merge_cv_.notify_all();
  for (auto& w : worker_) w->thread.join();
  merge_thread_.join();
}

void ParallelApply::Merge() {
  FiringMerge merge(num_aggs_);
  std::vector<const FiringLog*> logs(workers_);
  for (uint64_t b = 0;; ++b) {
    {
      std::unique_lock<std::mutex> lk(mu_);
      auto applied = [&] {
        for (const auto& w : worker_)
          if (w->done <= b) return false;
        return true;
      };
      merge_cv_.wait(lk, [&] { return stop_ || applied(); });
      if (!applied()) return;
    }
    for (uint32_t w = 0; w < workers_; ++w) logs[w] = &worker_[w]->logs[b % kBatches];
    records_written_ += merge.Write(logs, sink_);
    {
      std::lock_guard<std::mutex> lk(mu_);
      merged_ = b + 1;
    }
    work_cv_.notify_all();
    merged_cv_.notify_all();
  }
}

void ParallelApply::StartBatch() {
  Batch* b = batches_[sealed_ % kBatches].get();
  {
    std::unique_lock<std::mutex> lk(mu_);
    free_cv_.wait(lk, [&] { return b->pending == 0; });
  }
  b->Clear();
  if (b->arena.capacity() < kArenaBytes) b->arena.reserve(kArenaBytes);
  filling_ = b;
}

void ParallelApply::Seal() {
  if (filling_ == nullptr || filling_->ops.empty()) return;
  {
    std::lock_guard<std::mutex> lk(mu_);
    filling_->pending = workers_;
    ++sealed_;
  }
  filling_ = nullptr;
  work_cv_.notify_all();
}

void ParallelApply::Reserve(size_t bytes) {
  if (filling_ == nullptr) StartBatch();
  if (filling_->arena.size() + bytes <= filling_->arena.capacity()) return;
  // The arena never grows under the views into it: a full batch is handed over first.
  Seal();
  StartBatch();
  if (bytes > filling_->arena.capacity()) filling_->arena.reserve(bytes);
}

void ParallelApply::Append(const Event& e, uint64_t* number, uint32_t* index) {
  size_t bytes = e.key.size();
  for (size_t a = 0; a < num_aggs_; ++a) bytes += e.inputs[a].s.size();
  Reserve(bytes);
  Batch& b = *filling_;
  Op o;
  o.kind = Op::kAdd;
  o.key_slot = static_cast<uint8_t>(e.key_slot);
  o.worker = static_cast<uint16_t>(WorkerOfGroup(KeyGroupOf(e.key), workers_));
  o.key_size = static_cast<uint32_t>(e.key.size());
  o.time = e.time;
  o.seq = e.seq;
  o.key_hash = e.key_hash;
  o.key_token = e.key_token;
  o.key = b.arena.data() + b.arena.size();
  b.arena.append(e.key);
  o.inputs = static_cast<uint32_t>(b.values.size());
  for (size_t a = 0; a < num_aggs_; ++a) {
    ValueRef v = e.inputs[a];
    if (!v.s.empty()) {
      const char* at = b.arena.data() + b.arena.size();
      b.arena.append(v.s);
      v.s = std::string_view(at, v.s.size());
    }
    b.values.push_back(v);
  }
  o.result = AddResult{0, 0};
  b.ops.push_back(o);
  if (number != nullptr) {
    *number = sealed_;
    *index = static_cast<uint32_t>(b.ops.size() - 1);
  }
  if (b.ops.size() >= kBatchOps || b.values.size() >= kBatchValues) Seal();
}

AddResult ParallelApply::AddAndWait(const Event& e) {
  uint64_t number;
  uint32_t index;
  Append(e, &number, &index);
  Seal();
  // The batch is not filled again before this returns: only this thread fills batches.
  Batch* b = batches_[number % kBatches].get();
  const uint16_t worker = b->ops[index].worker;
  {
    std::unique_lock<std::mutex> lk(mu_);
    free_cv_.wait(lk, [&] { return worker_[worker]->done > number; });
  }
  return b->ops[index].result;
}

void ParallelApply::Rise(Nanos w) {
  Reserve(0);
  Op o{};
  o.kind = Op::kRise;
  o.time = w;
  filling_->ops.push_back(o);
  if (filling_->ops.size() >= kBatchOps) Seal();
}

void ParallelApply::EmitOpen() {
  Reserve(0);
  Op o{};
  o.kind = Op::kEmitOpen;
  filling_->ops.push_back(o);
  Seal();
}

void ParallelApply::Barrier() {
  Seal();
  std::unique_lock<std::mutex> lk(mu_);
  merged_cv_.wait(lk, [&] { return merged_ == sealed_; });
}

void ParallelApply::Drain() {
  std::unique_lock<std::mutex> lk(mu_);
  merged_cv_.wait(lk, [&] { return merged_ == sealed_; });
}

size_t ParallelApply::open_entries() const {
  size_t n = 0;
  for (const auto& w : worker_) n += w->open_entries_.load(std::memory_order_relaxed);
  return n;
}

void ParallelApply::set_first_seq(uint64_t seq) {
  for (auto& w : worker_) w->load().set_first_seq(seq);
}

const Accumulators* ParallelApply::accumulators(uint32_t w) const { return &worker_[w]->acc(); }

void ParallelApply::set_observer(uint32_t w, FiringObserver* observer) {
  worker_[w]->set_observer(observer);
}

void ParallelApply::JoinGroupLoads(GroupLoad* into) const {
  for (const auto& w : worker_) into->Absorb(w->load());
}

void ParallelApply::AddCounts(uint64_t* records, uint64_t* wrong_type) {
  *records += records_written_ - records_counted_;
  records_counted_ = records_written_;
  for (size_t a = 0; a < num_aggs_; ++a) {
    uint64_t sum = 0;
    for (const auto& w : worker_) sum += w->wrong_type()[a];
    wrong_type[a] += sum - wrong_counted_[a];
    wrong_counted_[a] = sum;
  }
}

std::vector<WindowOperator*> ParallelApply::operators() const {
  std::vector<WindowOperator*> ops;
  for (const auto& w : worker_) ops.push_back(w->op());
  return ops;
}

WindowLogComponent* ParallelApply::windows(WindowOperator* keyless) {
  if (windows_ == nullptr) windows_ = std::make_unique<Windows>(this, keyless);
  return windows_.get();
}

Status ParallelApply::Windows::Save(std::string* data, std::vector<StateOp>* log, bool all) {
  apply_->Barrier();
  return keyless_->SaveShards(apply_->operators(), data, log, all);
}

Status ParallelApply::Windows::Load(std::string_view data, uint32_t version, RowSource* rows) {
  Status s = keyless_->LoadShards(apply_->operators(), data, version, rows);
  for (const auto& w : apply_->worker_)
    w->open_entries_.store(w->op()->open_entries(), std::memory_order_relaxed);
  return s;
}

size_t ParallelApply::Windows::recorded_changes() const {
  return WindowOperator::RecordedChangesOf(apply_->operators());
}

size_t ParallelApply::Windows::open_entries() const {
  size_t n = 0;
  for (const WindowOperator* op : apply_->operators()) n += op->open_entries();
  return n;
}

size_t ParallelApply::Windows::pending_timers() const {
  std::vector<WindowOperator*> all = apply_->operators();
  all.push_back(keyless_);
  return WindowOperator::PendingTimersOf(all);
}

}  // namespace logtide
