// Parallel apply (--apply-threads N, N >= 2): every event goes to the apply worker that owns its
// key's group (keys/key_group.h), in batches; each worker holds its own keys, accumulators and
// window operator, applies its events strictly in input order and sees every rise of the
// watermark, so its state is the part of one operator's state that its keys make. The records
// of every worker for one batch are merged (FiringMerge) on a thread of their own into the
// order one operator holding all the keys writes them, so the output is the same bytes for
// every number of workers.
//
// The reading thread (the engine's) decides whether each event is late before handing it over
// (WindowOperator::PredictAdd on an operator that holds no keys); the one case it cannot,
// an event behind the watermark by more than a session gap plus the lateness, is handed over
// at once and its answer waited for (AddAndWait). Nothing is handed over per event: the
// reading thread fills a batch, and workers and the merge block, never spin, while there is
// nothing to do.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "agg/accumulators.h"
#include "agg/agg_spec.h"
#include "apply/firing_log.h"
#include "json/value.h"
#include "keys/group_load.h"
#include "output/record_writer.h"
#include "window/window_operator.h"

namespace logtide {

class ParallelApply {
 public:
  // Makes a worker's window operator over its own keys, accumulators and emitter.
  using OperatorFactory = std::function<std::unique_ptr<WindowOperator>(WindowOperator::Deps)>;
  // Starts `workers` apply workers and the merge, which writes records to `sink` (not owned;
  // left alone by the caller until Barrier returns; may be set later: set_sink).
  // REQUIRES: 2 <= workers <= kKeyGroups.
  ParallelApply(uint32_t workers, const std::vector<AggSpec>& aggs, size_t key_fields,
                const OperatorFactory& make_operator, RecordSink* sink = nullptr);
  ~ParallelApply();  // stops the threads (Barrier first to have everything written)
  ParallelApply(const ParallelApply&) = delete;
  ParallelApply& operator=(const ParallelApply&) = delete;

  // Where the merge writes records. REQUIRES: before the first batch is handed over.
  void set_sink(RecordSink* sink) { sink_ = sink; }
  // Worker w's accumulators, and who sees its firings' records on its thread (not owned).
  // REQUIRES: w < workers; set_observer before the first batch is handed over.
  const Accumulators* accumulators(uint32_t w) const;
  void set_observer(uint32_t w, FiringObserver* observer);

  // An event to add, at the watermark of the last Rise: its key (EncodeValue bytes) with
  // KeyTable's hash, the parser's key token and cache slot (KeyTable::Intern), its time, its
  // aggregates' inputs (copied) and its position in the stream. The pointees are copied.
  struct Event {
    std::string_view key;
    size_t key_hash;
    uint64_t key_token;
    uint32_t key_slot;
    Nanos time;
    const ValueRef* inputs;
    uint64_t seq;
  };
  // Hands the event to its worker; the caller knows Add's answer (PredictAdd said it).
  void Add(const Event& e) { Append(e, nullptr, nullptr); }
  // Hands the event to its worker, waits until it is applied, and returns Add's answer.
  AddResult AddAndWait(const Event& e);
  // The watermark rose to w: every worker's operator fires what it passed.
  void Rise(Nanos w);
  // A stop signal: every worker writes its open windows' provisional records
  // (WindowOperator::EmitOpen).
  void EmitOpen();
  // Hands over what is left and returns once every event is applied and every record written:
  // the workers' state is then that of the events handed over, and stays so until more are.
  void Barrier();
  // Returns once every batch handed over is applied and its records written (the one being
  // filled stays): until the caller hands over more, nothing writes to the record sink, so the
  // caller may flush the file under it.
  void Drain();

  // (window or pane, key) states open in all workers, as of the batches they finished.
  size_t open_entries() const;
  // After Barrier: adds the records written and, per aggregate, the values of the wrong type
  // since the last call to *records and wrong_type[a].
  void AddCounts(uint64_t* records, uint64_t* wrong_type);
  // Before the first event: GroupLoad::set_first_seq for every worker's.
  void set_first_seq(uint64_t seq);
  // After Barrier: adds the workers' events by key group (each counts its own groups) to *into.
  void JoinGroupLoads(GroupLoad* into) const;

  // The workers' window state as one checkpoint component ("windows"): saved and restored as
  // one operator holding all the keys (WindowOperator::SaveShards, LoadShards), so a state
  // written with any number of workers, or with none, resumes with any number. `keyless` is
  // the reading thread's operator (it holds no keys and takes the restored watermark).
  // Save waits for a barrier first; Load comes before the first batch.
  class Windows final : public WindowLogComponent {
   public:
    Windows(ParallelApply* apply, WindowOperator* keyless) : apply_(apply), keyless_(keyless) {}
    std::string_view section() const override { return keyless_->section(); }
    uint32_t version() const override { return keyless_->version(); }
    bool Reads(uint32_t version) const override { return keyless_->Reads(version); }
    Status Save(std::string* data, std::vector<StateOp>* log, bool all) override;
    Status Load(std::string_view data, uint32_t version, RowSource* rows) override;
    size_t recorded_changes() const override;
    size_t open_entries() const override;
    // Every worker's timers, as one operator holding all the keys counts them
    // (WindowOperator::PendingTimersOf): the same for any number of workers.
    size_t pending_timers() const override;
    int64_t watermark() const override { return keyless_->watermark(); }

   private:
    ParallelApply* apply_;
    WindowOperator* keyless_;
  };
  // Makes the component; it lives as long as this does.
  WindowLogComponent* windows(WindowOperator* keyless);

 private:
  struct Op {
    enum Kind : uint8_t { kAdd, kRise, kEmitOpen };
    Kind kind;
    uint8_t key_slot;
    uint16_t worker;
    uint32_t key_size;
    Nanos time;  // the event's time, or the watermark
    uint64_t seq;
    uint64_t key_hash;
    uint64_t key_token;
    const char* key;  // in the batch's arena
    uint32_t inputs;  // the first of the aggregates' inputs in the batch's values
    AddResult result;  // AddAndWait's answer, set by the worker
  };
  struct Batch {
    std::vector<Op> ops;
    std::vector<ValueRef> values;
    std::string arena;  // keys and string inputs; never grows while the batch is filled
    uint32_t pending = 0;  // workers still applying it (0: free)
    void Clear() {
      ops.clear();
      values.clear();
      arena.clear();
    }
  };
  class Worker;

  // Appends e to the batch being filled; with `number`, says which batch and which op it is.
  void Append(const Event& e, uint64_t* number, uint32_t* index);
  // Makes sure the batch being filled has `bytes` of arena and one more op free, sealing it
  // first when not.
  void Reserve(size_t bytes);
  // Hands the batch being filled over to every worker (if it holds anything).
  void Seal();
  // Waits for the next batch to be free and starts filling it.
  void StartBatch();
  void Merge();  // the merge thread

  // The workers' operators. REQUIRES: at a barrier, or before the first batch.
  std::vector<WindowOperator*> operators() const;

  const uint32_t workers_;
  const size_t num_aggs_;
  RecordSink* sink_;
  std::vector<std::unique_ptr<Worker>> worker_;

  // Batches ring: batch number b is in slot b % kBatches.
  static constexpr size_t kBatches = 4;
  std::unique_ptr<Batch> batches_[kBatches];
  Batch* filling_ = nullptr;
  uint64_t sealed_ = 0;  // batches handed over

  mutable std::mutex mu_;
  std::condition_variable work_cv_;   // workers: a batch was sealed, or stop
  std::condition_variable free_cv_;   // the reading thread: a batch was freed, or applied
  std::condition_variable merge_cv_;  // the merge: a worker's log is ready, or stop
  std::condition_variable merged_cv_;  // Finish: a batch was written
  uint64_t merged_ = 0;   // batches whose records are written
  bool stop_ = false;
  std::thread merge_thread_;
  uint64_t records_written_ = 0;  // by the merge thread; read after Barrier
  uint64_t records_counted_ = 0;  // AddCounts: records_written_ as of its last call
  std::vector<uint64_t> wrong_counted_;  // AddCounts: per aggregate, as of its last call
  std::unique_ptr<Windows> windows_;
};

}  // namespace logtide
