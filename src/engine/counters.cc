#include "engine/counters.h"

#include "util/bytes.h"

namespace logtide {

EngineStats EngineStats::Since(const EngineStats& a) const {
  EngineStats r = *this;
  r.lines -= a.lines;
  r.events -= a.events;
  r.bad_lines -= a.bad_lines;
  r.late_events -= a.late_events;
  r.partly_late_events -= a.partly_late_events;
  r.missed_windows -= a.missed_windows;
  r.windows_emitted -= a.windows_emitted;
  r.filtered -= a.filtered;
  for (size_t i = 0; i < r.ignored_values.size() && i < a.ignored_values.size(); ++i)
    r.ignored_values[i] -= a.ignored_values[i];
  return r;
}

// Section "counters", version 1: u64 seq, u64 lines, events, bad_lines, late_events,
// windows_emitted, u32 aggregates, u64 ignored values each, u32 bad lines reported. Version 2
// (written by f7668ee for a query with --where): then u64 filtered. Version 3 (written now for
// every query): then u64 filtered, partly_late_events, missed_windows.
Status CountersState::Save(std::string* data) {
  ByteWriter w(data);
  w.U64(*seq_);
  for (uint64_t v : {stats_->lines, stats_->events, stats_->bad_lines, stats_->late_events,
                     stats_->windows_emitted})
    w.U64(v);
  w.U32(static_cast<uint32_t>(stats_->ignored_values.size()));
  for (uint64_t v : stats_->ignored_values) w.U64(v);
  w.U32(static_cast<uint32_t>(*reported_));
  w.U64(stats_->filtered);
  w.U64(stats_->partly_late_events);
  w.U64(stats_->missed_windows);
  return Status::Ok();
}

Status CountersState::Load(std::string_view data, uint32_t version) {
  ByteReader r(data);
  *seq_ = r.U64();
  for (uint64_t* v : {&stats_->lines, &stats_->events, &stats_->bad_lines, &stats_->late_events,
                      &stats_->windows_emitted})
    *v = r.U64();
  if (r.U32() != stats_->ignored_values.size())
    return Status::Corruption("the number of aggregates differs");
  for (uint64_t& v : stats_->ignored_values) v = r.U64();
  *reported_ = static_cast<int>(r.U32());
  if (version >= 2) stats_->filtered = r.U64();
  // A version before 3 did not count them: from 0.
  stats_->partly_late_events = version >= 3 ? r.U64() : 0;
  stats_->missed_windows = version >= 3 ? r.U64() : 0;
  if (!r.ok() || !r.at_end()) return Status::Corruption("it does not decode");
  return Status::Ok();
}

}  // namespace logtide
