#include "engine/output_thread.h"

namespace logtide {

namespace {

// Batches in all: one being filled, one being written, one queued between. The applying
// thread waits for a free one when the output thread falls behind (memory stays bounded).
constexpr size_t kBatches = 3;
// A batch is handed over once its bytes pass this (after a whole firing: a firing's records
// are sorted together, so they stay in one batch).
constexpr size_t kHandOverBytes = 1 << 20;

}  // namespace

OutputThread::OutputThread(RecordSink* writer, size_t num_aggs, std::function<void()> flush)
    : writer_(writer), num_aggs_(num_aggs), flush_(std::move(flush)) {
  for (size_t i = 0; i < kBatches; ++i) {
    batches_.push_back(std::make_unique<Batch>());
    free_.push_back(batches_.back().get());
  }
  thread_ = std::thread([this] { Run(); });
}

OutputThread::~OutputThread() {
  Drain();
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  work_cv_.notify_one();
  thread_.join();
}

void OutputThread::Add(const std::vector<WindowResult>& results, const KeyTable& keys,
                       const Accumulators& acc) {
  if (filling_ == nullptr) StartBatch();
  Batch& b = *filling_;
  recorder_.set_bytes(&b.bytes);
  b.firings.push_back(b.records.size());
  const size_t n = results.size();
  for (size_t i = 0; i < n; ++i) {
    // Results come in id order of their keys at best: fetch a few keys ahead.
    if (i + 8 < n) keys.Prefetch(results[i + 8].key);
    const WindowResult& r = results[i];
    const std::string_view key = keys.encoded(r.key);
    b.records.push_back(Batch::Record{r.start, r.end, RecordRevision{r.revision, r.phase, r.final},
                                      b.bytes.size(), key.size()});
    b.bytes.append(key);
    for (size_t a = 0; a < num_aggs_; ++a) acc.Result(r.slot, a, &recorder_);
  }
  if (b.bytes.size() >= kHandOverBytes) HandOver();
}

void OutputThread::StartBatch() {
  std::unique_lock<std::mutex> lk(mu_);
  done_cv_.wait(lk, [&] { return !free_.empty(); });
  filling_ = free_.back();
  free_.pop_back();
  filling_->Clear();
}

void OutputThread::FlushSoon() {
  if (filling_ == nullptr) StartBatch();  // an empty one, to flush after those queued
  filling_->flush = true;
  HandOver();
}

void OutputThread::HandOver() {
  if (filling_ == nullptr) return;
  {
    std::lock_guard<std::mutex> lk(mu_);
    queue_.push_back(filling_);
  }
  filling_ = nullptr;
  work_cv_.notify_one();
}

void OutputThread::Drain() {
  HandOver();
  std::unique_lock<std::mutex> lk(mu_);
  done_cv_.wait(lk, [&] { return queue_.empty() && !writing_; });
}

void OutputThread::Run() {
  std::unique_lock<std::mutex> lk(mu_);
  while (true) {
    work_cv_.wait(lk, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopped, and nothing left
    Batch* b = queue_.front();
    queue_.pop_front();
    writing_ = true;
    lk.unlock();
    Write(*b);
    if (b->flush && flush_) flush_();
    lk.lock();
    writing_ = false;
    free_.push_back(b);
    done_cv_.notify_one();
  }
}

void OutputThread::Write(const Batch& b) {
  const std::string_view bytes = b.bytes;
  for (size_t f = 0; f < b.firings.size(); ++f) {
    const size_t first = b.firings[f];
    const size_t last = f + 1 < b.firings.size() ? b.firings[f + 1] : b.records.size();
    firing_.Clear();
    for (size_t i = first; i < last; ++i) {
      const Batch::Record& r = b.records[i];
      firing_.Add(r.start, r.end, bytes.substr(r.key_at, r.key_size));
    }
    // The aggregates' results as recorded, after the key.
    firing_.Write(writer_, [&](uint32_t i, ValueSink* sink) {
      const Batch::Record& r = b.records[first + i];
      std::string_view v = bytes.substr(r.key_at + r.key_size);
      for (size_t a = 0; a < num_aggs_; ++a) ReplayResult(&v, sink, &scratch_);
      return r.revision;
    });
  }
}

}  // namespace logtide
