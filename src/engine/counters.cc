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

bool DecodeCounters(std::string_view data, uint32_t version, SavedCounters* out) {
  if (version < 1 || version > 3) return false;
  ByteReader r(data);
  EngineStats& st = out->stats;
  out->version = version;
  out->seq = r.U64();
  for (uint64_t* v : {&st.lines, &st.events, &st.bad_lines, &st.late_events, &st.windows_emitted})
    *v = r.U64();
  // Each ignored-values count takes 8 bytes: a count beyond the bytes left is damage, not a
  // size to allocate.
  const uint32_t aggregates = r.U32();
  if (!r.ok() || aggregates > data.size() / 8) return false;
  st.ignored_values.assign(aggregates, 0);
  for (uint64_t& v : st.ignored_values) v = r.U64();
  out->reported = r.U32();
  if (version >= 2) st.filtered = r.U64();
  // A version before 3 did not count them: from 0.
  st.partly_late_events = version >= 3 ? r.U64() : 0;
  st.missed_windows = version >= 3 ? r.U64() : 0;
  return r.ok() && r.at_end();
}

Status CountersState::Load(std::string_view data, uint32_t version) {
  SavedCounters saved;
  if (!DecodeCounters(data, version, &saved)) return Status::Corruption("it does not decode");
  if (saved.stats.ignored_values.size() != stats_->ignored_values.size())
    return Status::Corruption("the number of aggregates differs");
  *seq_ = saved.seq;
  const EngineStats& st = saved.stats;
  stats_->lines = st.lines, stats_->events = st.events, stats_->bad_lines = st.bad_lines;
  stats_->late_events = st.late_events, stats_->windows_emitted = st.windows_emitted;
  stats_->ignored_values = st.ignored_values;
  *reported_ = static_cast<int>(saved.reported);
  if (version >= 2) stats_->filtered = saved.stats.filtered;
  stats_->partly_late_events = st.partly_late_events;
  stats_->missed_windows = st.missed_windows;
  return Status::Ok();
}

void CountersState::DescribeSection(StateCodec* c) {
  c->U64("seq");
  for (const char* name : {"lines", "events", "bad_lines", "late_events", "windows_emitted"})
    c->U64(name);
  const uint64_t n = c->List("ignored_values");
  for (uint64_t i = 0; i < n && c->ok(); ++i) c->U64("");
  c->End();
  c->U32("bad_lines_reported");
  c->U64("filtered");
  c->U64("partly_late_events");
  c->U64("missed_windows");
}

}  // namespace logtide
