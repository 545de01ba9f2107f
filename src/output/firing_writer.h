// The one writer of a firing: the records of the windows that fired together, sorted by
// (end, start, key) (ResultOrder) and written to a RecordSink. Used on the thread that applies
// events (engine/result_sink.h) and on the output thread (engine/output_thread.h), so both
// write the same bytes; they differ only in where a record's aggregate results come from (the
// window state, or their recorded form: output/recorded_results.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "json/value.h"
#include "output/record_writer.h"
#include "output/result_order.h"
#include "time/timestamp.h"

namespace logtide {

class FiringWriter {
 public:
  // Starts a firing: forgets the records added before.
  void Clear() { order_.Clear(); }
  // Adds record number size(): its window and its key (EncodeValue form: one value per key
  // field). The key's bytes must outlive Write.
  void Add(Nanos start, Nanos end, std::string_view key) { order_.Add(start, end, key); }
  size_t size() const { return order_.size(); }

  // Writes the records added since Clear to `sink`, in ResultOrder: for each record i,
  // BeginRecord, one Key per key field, then results(i, sink), which gives `sink` record i's
  // aggregates (one ValueSink call each) and returns its RecordRevision, and EndRecord with
  // that revision; then EndFiring.
  template <class Results>
  void Write(RecordSink* sink, Results&& results);

 private:
  ResultOrder order_;
  std::string scratch_;  // a decoded key's string holding 0x00
};

template <class Results>
void FiringWriter::Write(RecordSink* sink, Results&& results) {
  const std::vector<uint32_t>& order = order_.Sort();
  const size_t n = order.size();
  for (size_t i = 0; i < n; ++i) {
    // Records are written in another order than they were added: fetch a few keys ahead.
    if (i + 8 < n) __builtin_prefetch(order_.key(order[i + 8]).data());
    const uint32_t r = order[i];
    sink->BeginRecord(order_.start(r), order_.end(r));
    std::string_view key = order_.key(r);
    while (!key.empty()) sink->Key(DecodeValue(&key, &scratch_));
    const RecordRevision revision = results(r, static_cast<ValueSink*>(sink));
    sink->EndRecord(revision);
  }
  sink->EndFiring();
}

}  // namespace logtide
