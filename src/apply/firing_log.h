// The firings one apply worker made over one batch of operations, copied out of its window
// state (keys in EncodeValue form, aggregate results as output/recorded_results.h records
// them), each with where it stands in the batch; and the merge that writes the firings of
// every worker for one batch as one operator holding all the keys would have written them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "agg/accumulators.h"
#include "keys/key_table.h"
#include "output/firing_writer.h"
#include "output/record_writer.h"
#include "output/recorded_results.h"
#include "window/window_operator.h"

namespace logtide {

// Where a firing stands in its batch: the operation that made it (its index in the batch),
// then its FiringOrder within that operation's call.
struct FiringTag {
  uint32_t op = 0;
  FiringOrder order;
  bool operator<(const FiringTag& o) const {
    return op != o.op ? op < o.op : order < o.order;
  }
  bool operator==(const FiringTag& o) const { return op == o.op && order == o.order; }
};

class FiringLog {
 public:
  void Clear();
  // Copies one firing (ResultEmitter::EmitWindows) standing at `tag`. REQUIRES: tags come in
  // increasing order.
  void Add(const std::vector<WindowResult>& results, const KeyTable& keys, const Accumulators& acc,
           const FiringTag& tag);
  size_t firings() const { return firings_.size(); }
  size_t records() const { return records_.size(); }
  size_t bytes() const { return bytes_.size(); }

 private:
  friend class FiringMerge;
  struct Record {
    Nanos start, end;
    RecordRevision revision;
    uint64_t key_at;  // in bytes_: the key, then its aggregate results
    uint32_t key_size;
  };
  struct Firing {
    FiringTag tag;
    size_t first;  // its first record
  };
  std::vector<Record> records_;
  std::vector<Firing> firings_;
  std::string bytes_;
  ResultRecorder recorder_;
};

// Writes the firings of `logs` (one per worker, of the same batch): the firings with equal tags
// as one firing, in tag order; each firing's records sorted by FiringWriter (window end, start,
// key), so the bytes are those of one operator holding every key. Returns the records written.
class FiringMerge {
 public:
  explicit FiringMerge(size_t num_aggs) : num_aggs_(num_aggs) {}
  uint64_t Write(const std::vector<const FiringLog*>& logs, RecordSink* sink);

 private:
  struct Ref {
    const FiringLog* log;
    uint32_t record;
  };
  size_t num_aggs_;
  FiringWriter writer_;
  std::vector<size_t> next_;  // per log: its next firing
  std::vector<Ref> refs_;     // the records of the firing being written, as added
  std::string scratch_;
};

}  // namespace logtide
