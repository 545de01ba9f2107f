// How much the answers improved after they were on time (issue 29): of the (window, key)
// pairs whose on-time record this run wrote and that could still change (update mode with
// --lateness), how many were corrected, and by how much each numeric aggregate moved, as
// relative changes |last - on_time| / |on_time| (see man/logtide.1, SEMANTICS, "Corrections").
// Fed by the result sink with every firing, on the applying thread (the results' slots are
// valid during the call); held per pair from its on-time record to its final one.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "agg/accumulators.h"
#include "window/window_operator.h"

namespace logtide {

class CorrectionStats final : public FiringObserver {
 public:
  // REQUIRES: `acc` outlives this.
  explicit CorrectionStats(const Accumulators* acc) : acc_(acc) {}

  // The records of one firing (or late event): an on-time record that is not final starts
  // holding its pair's values; a later record of a held pair replaces its last values, and a
  // final one settles the pair.
  void Observe(const std::vector<WindowResult>& results) override;
  // Settles the pairs still held (no final record in this run: a stop, --hold, a session
  // merged away), with their last values. Call once, after the last Observe.
  void Finish();
  // Adds the pairs of `other`, which observed the firings of other keys (a parallel apply
  // worker's). REQUIRES: other.Finish() was called, and this one's Finish is called after.
  void Absorb(const CorrectionStats& other);

  // Pairs whose on-time record could still change, and those of them whose last record had
  // another value of some aggregate than their on-time one.
  uint64_t on_time() const { return on_time_; }
  uint64_t corrected() const { return corrected_; }
  // Of aggregate `agg`, over the corrected pairs where it is a number in both records and not
  // 0 on time: how many there are, the median (of an even number, the mean of the two middle
  // ones) and the largest relative change. REQUIRES: Finish() was called.
  struct Change {
    uint64_t pairs = 0;
    double median = 0;
    double max = 0;
  };
  Change change(size_t agg) const;

  // The end-of-run line (without "logtide: warning: "), naming the aggregates by `names`; ""
  // when no pair was corrected. REQUIRES: Finish() was called.
  std::string Summary(const std::vector<std::string>& names) const;
  // The --stats object: {"on_time":M,"corrected":N,"relative_change":{NAME:{"pairs":n,
  // "median":x,"max":y},...}}, with the aggregates that have figures.
  std::string StatsJson(const std::vector<std::string>& names) const;

 private:
  // A record's aggregates: their JSON text (to compare), and each as a number (NaN when it is
  // not one).
  struct Values {
    std::string text;
    std::vector<double> numbers;
  };
  struct Held {
    Values on_time;
    Values last;
  };
  void Read(const WindowResult& r, Values* out) const;
  void Settle(const Held& h);

  const Accumulators* acc_;
  // (window start, window end, key id) -> the pair's values. A held pair's key is held by its
  // window's state until its final record (the closing record comes before the state is
  // dropped); only a pair that gets none (a session whose bounds a late event changed) can
  // outlive its key's id, and its last values are its on-time ones: no correction either way.
  absl::flat_hash_map<std::tuple<Nanos, Nanos, uint32_t>, Held> held_;
  uint64_t on_time_ = 0;
  uint64_t corrected_ = 0;
  std::vector<std::vector<double>> changes_;  // per aggregate, per corrected pair
};

}  // namespace logtide
