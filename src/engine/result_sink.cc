#include "engine/result_sink.h"

namespace logtide {

void ResultSink::EmitWindows(const std::vector<WindowResult>& results, const FiringOrder&) {
  *windows_emitted_ += results.size();
  if (corrections_ != nullptr) corrections_->Observe(results);
  if (thread_ != nullptr) {
    thread_->Add(results, *keys_, *acc_);
    return;
  }
  const size_t n = results.size();
  firing_.Clear();
  for (size_t i = 0; i < n; ++i) {
    // Results come in id order of their keys at best: fetch a few keys ahead.
    if (i + 8 < n) keys_->Prefetch(results[i + 8].key);
    const WindowResult& r = results[i];
    firing_.Add(r.start, r.end, keys_->encoded(r.key));
  }
  // The aggregates' results straight from the window state.
  firing_.Write(writer_, [&](uint32_t i, ValueSink* sink) {
    const WindowResult& r = results[i];
    for (size_t a = 0; a < acc_->num_aggs(); ++a) acc_->Result(r.slot, a, sink);
    return RecordRevision{r.revision, r.phase, r.final};
  });
}

}  // namespace logtide
