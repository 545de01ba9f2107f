#include "engine/result_sink.h"

namespace logtide {

void ResultSink::EmitWindows(const std::vector<WindowResult>& results) {
  *windows_emitted_ += results.size();
  if (thread_ != nullptr) {
    thread_->Add(results, *keys_, *acc_);
    return;
  }
  const size_t n = results.size();
  order_.Clear();
  for (size_t i = 0; i < n; ++i) {
    // Results come in id order of their keys at best: fetch a few keys ahead.
    if (i + 8 < n) keys_->Prefetch(results[i + 8].key);
    order_.Add(results[i].start, results[i].end, keys_->encoded(results[i].key));
  }
  const std::vector<uint32_t>& order = order_.Sort();
  for (size_t i = 0; i < n; ++i) {
    if (i + 8 < n) keys_->Prefetch(results[order[i + 8]].key);
    const WindowResult& r = results[order[i]];
    writer_->BeginRecord(r.start, r.end);
    std::string_view k = keys_->encoded(r.key);
    while (!k.empty()) writer_->Key(DecodeValue(&k, &scratch_));
    for (size_t a = 0; a < acc_->num_aggs(); ++a) acc_->Result(r.slot, a, writer_);
    writer_->EndRecord(r.revision);
  }
}

}  // namespace logtide
