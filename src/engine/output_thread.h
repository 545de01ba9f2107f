// The output thread (with worker threads): the windows each firing emits are copied out of the
// window state on the thread that applies events (their keys and aggregate results, in the
// order they fired, the results recorded by output/recorded_results.h), then written on a
// thread of their own. The bytes are those the applying thread would write: the same
// FiringWriter (output/firing_writer.h) and RecordSink, firing by firing, in order.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "agg/accumulators.h"
#include "keys/key_table.h"
#include "output/firing_writer.h"
#include "output/record_writer.h"
#include "output/recorded_results.h"
#include "window/window_operator.h"

namespace logtide {

class OutputThread {
 public:
  // Writes records with `writer` (not owned) from a thread started here. The caller leaves the
  // writer and its output alone except between Drain() and the next Add(). `flush`, called on
  // that thread, writes out what the writer's output buffers (FlushSoon).
  OutputThread(RecordSink* writer, size_t num_aggs, std::function<void()> flush = nullptr);
  ~OutputThread();  // drains, then stops the thread
  OutputThread(const OutputThread&) = delete;
  OutputThread& operator=(const OutputThread&) = delete;

  // Copies the windows of one firing (ResultEmitter::EmitWindows) to be written.
  void Add(const std::vector<WindowResult>& results, const KeyTable& keys, const Accumulators& acc);
  // Returns once every record added is in the writer's output (which may still buffer it).
  void Drain();
  // Has every record added written and the output flushed soon, without waiting for it.
  void FlushSoon();

 private:
  // Records of some firings. `bytes` holds each record's key (EncodeValue form) followed by
  // its aggregate results (ResultRecorder's form).
  struct Batch {
    struct Record {
      Nanos start, end;
      RecordRevision revision;
      uint64_t key_at, key_size;
    };
    std::vector<Record> records;
    std::vector<size_t> firings;  // the first record of each firing
    std::string bytes;
    bool flush = false;  // flush the output once written
    void Clear() {
      records.clear();
      firings.clear();
      bytes.clear();
      flush = false;
    }
  };
  void Run();
  void Write(const Batch& b);
  // Queues the batch being filled (if it holds anything).
  void HandOver();
  // Makes filling_ a batch, waiting for a free one.
  void StartBatch();

  RecordSink* writer_;
  size_t num_aggs_;
  std::function<void()> flush_;
  ResultRecorder recorder_;  // used by the applying thread only
  FiringWriter firing_;      // used by the output thread only
  std::string scratch_;      // the same: a decoded string holding 0x00

  std::mutex mu_;
  std::condition_variable work_cv_;  // the output thread: a batch is queued, or stop
  std::condition_variable done_cv_;  // the applying thread: a batch was written
  std::vector<std::unique_ptr<Batch>> batches_;
  std::vector<Batch*> free_;
  std::deque<Batch*> queue_;
  Batch* filling_ = nullptr;  // the batch Add appends to (applying thread only)
  bool writing_ = false;      // the output thread is writing a batch it took off the queue
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace logtide
