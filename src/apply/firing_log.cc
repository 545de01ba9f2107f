#include "apply/firing_log.h"

namespace logtide {

void FiringLog::Clear() {
  records_.clear();
  firings_.clear();
  bytes_.clear();
}

void FiringLog::Add(const std::vector<WindowResult>& results, const KeyTable& keys,
                    const Accumulators& acc, const FiringTag& tag) {
  recorder_.set_bytes(&bytes_);
  firings_.push_back(Firing{tag, records_.size()});
  const size_t n = results.size();
  for (size_t i = 0; i < n; ++i) {
    if (i + 8 < n) keys.Prefetch(results[i + 8].key);
    const WindowResult& r = results[i];
    const std::string_view key = keys.encoded(r.key);
    records_.push_back(Record{r.start, r.end, RecordRevision{r.revision, r.phase, r.final},
                              bytes_.size(), static_cast<uint32_t>(key.size())});
    bytes_.append(key);
    for (size_t a = 0; a < acc.num_aggs(); ++a) acc.Result(r.slot, a, &recorder_);
  }
}

uint64_t FiringMerge::Write(const std::vector<const FiringLog*>& logs, RecordSink* sink) {
  const size_t n = logs.size();
  next_.assign(n, 0);
  uint64_t written = 0;
  while (true) {
    // The smallest tag at the head of any log.
    const FiringTag* least = nullptr;
    for (size_t i = 0; i < n; ++i) {
      if (next_[i] == logs[i]->firings_.size()) continue;
      const FiringTag& t = logs[i]->firings_[next_[i]].tag;
      if (least == nullptr || t < *least) least = &t;
    }
    if (least == nullptr) return written;
    const FiringTag tag = *least;
    writer_.Clear();
    refs_.clear();
    for (size_t i = 0; i < n; ++i) {
      const FiringLog& log = *logs[i];
      if (next_[i] == log.firings_.size() || !(log.firings_[next_[i]].tag == tag)) continue;
      const size_t first = log.firings_[next_[i]].first;
      ++next_[i];
      const size_t last =
          next_[i] < log.firings_.size() ? log.firings_[next_[i]].first : log.records_.size();
      for (size_t r = first; r < last; ++r) {
        const FiringLog::Record& rec = log.records_[r];
        writer_.Add(rec.start, rec.end,
                    std::string_view(log.bytes_).substr(rec.key_at, rec.key_size));
        refs_.push_back(Ref{&log, static_cast<uint32_t>(r)});
      }
    }
    written += refs_.size();
    writer_.Write(sink, [&](uint32_t i, ValueSink* values) {
      const FiringLog::Record& rec = refs_[i].log->records_[refs_[i].record];
      std::string_view v = std::string_view(refs_[i].log->bytes_).substr(rec.key_at + rec.key_size);
      for (size_t a = 0; a < num_aggs_; ++a) ReplayResult(&v, values, &scratch_);
      return rec.revision;
    });
  }
}

}  // namespace logtide
