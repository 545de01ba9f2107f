#include "window/window_operator.h"

#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include <algorithm>

#include "time/timestamp.h"
#include "util/quote.h"
#include "window/pane_operator.h"
#include "window/session_operator.h"

namespace logtide {

std::unique_ptr<WindowOperator> WindowOperator::Create(const WindowSpec& spec, Nanos lateness,
                                                       EmitMode mode, Nanos early, Deps deps,
                                                       Nanos early_every) {
  std::unique_ptr<WindowOperator> op;
  if (spec.is_session())
    op = std::make_unique<SessionOperator>(spec, lateness, mode, early, deps);
  else
    op = std::make_unique<PaneOperator>(spec, lateness, mode, early, deps);
  op->early_every_ = early_every;
  if (spec.has_zone) {
    op->has_zone_ = true;
    op->zone_name_ = spec.zone.name();
    op->zone_db_ = ZoneDatabaseVersion();
  }
  return op;
}

void WindowOperator::StartProcessingTime(Nanos now) {
  if (early_every_ == 0) return;
  every_at_ = SatAdd(FloorTo(now, early_every_), early_every_);
  timers_.Set(TimeDomain::kProcessingTime, Timer{every_at_, kPlusInfinity, 0, 0, Timer::kEarly});
}

bool WindowOperator::OnProcessingTime(Nanos now) {
  // A clock set back by more than the interval: the trigger is due, not an interval away.
  const bool set_back =
      every_at_ != kPlusInfinity && SatSub(every_at_, now) > early_every_;
  const Nanos at = set_back ? every_at_ : now;
  Timer t;
  bool due = false;
  while (timers_.PopDue(TimeDomain::kProcessingTime, at, &t)) due = true;
  if (!due) return false;
  EmitOpen();
  StartProcessingTime(now);
  return true;
}

Status WindowOperator::SaveShards(const std::vector<WindowOperator*>& shards, std::string* data,
                                  std::vector<StateOp>* log, bool all) {
  ByteWriter w(data);
  w.I64(watermark_);
  w.Bytes(zone_db_);
  std::vector<WindowBounds> open;
  if (has_zone_) {
    for (const WindowOperator* s : shards) s->OpenWindows(&open);
    if (shards.size() > 1) {
      std::sort(open.begin(), open.end(), [](const WindowBounds& a, const WindowBounds& b) {
        return a.start < b.start;
      });
      open.erase(std::unique(open.begin(), open.end(),
                             [](const WindowBounds& a, const WindowBounds& b) {
                               return a.start == b.start;
                             }),
                 open.end());
    }
  }
  w.U32(static_cast<uint32_t>(open.size()));
  for (const WindowBounds& b : open) {
    w.I64(b.start);
    w.I64(b.end);
  }
  if (shards.size() == 1) {
    shards[0]->SnapshotRows(log, all);
  } else {
    // Each shard's changes are its erasures, then its puts; a pane several shards dropped is
    // erased once, and every erasure comes before every put, as one operator writes them.
    std::vector<StateOp> ops;
    for (WindowOperator* s : shards) s->SnapshotRows(&ops, all);
    absl::flat_hash_set<std::string_view> erased;
    for (const StateOp& op : ops) {
      if (op.kind == StateOp::kErasePrefix && erased.insert(op.key).second) log->push_back(op);
    }
    for (StateOp& op : ops) {
      if (op.kind != StateOp::kErasePrefix) log->push_back(std::move(op));
    }
  }
  SnapshotMeta(shards, &w);
  return Status::Ok();
}

size_t WindowOperator::WindowTimers(std::vector<Timer>* window) const {
  size_t keyed = timers_.size(TimeDomain::kProcessingTime);
  timers_.ForEach(TimeDomain::kEventTime, [&](const Timer& t) {
    if (IsWindowTimer(t)) {
      window->push_back(t);
    } else {
      ++keyed;
    }
  });
  return keyed;
}

size_t WindowOperator::PendingTimersOf(const std::vector<WindowOperator*>& shards) {
  if (shards.size() == 1) return shards[0]->pending_timers();
  // A window's timer as often as the shard that holds it most often does (one operator sets
  // each once per window, as each shard does): the timers of all, by value, then by shard.
  std::vector<std::pair<Timer, size_t>> window;
  std::vector<Timer> mine;
  size_t n = 0;
  for (size_t i = 0; i < shards.size(); ++i) {
    mine.clear();
    n += shards[i]->WindowTimers(&mine);
    for (const Timer& t : mine) window.emplace_back(t, i);
  }
  std::sort(window.begin(), window.end(), [](const auto& a, const auto& b) {
    return a.first.tie() < b.first.tie() || (a.first.tie() == b.first.tie() && a.second < b.second);
  });
  for (size_t i = 0; i < window.size();) {
    size_t most = 0;
    size_t j = i;
    while (j < window.size() && window[j].first.tie() == window[i].first.tie()) {
      size_t k = j;
      while (k < window.size() && window[k].first.tie() == window[j].first.tie() &&
             window[k].second == window[j].second)
        ++k;
      most = std::max(most, k - j);
      j = k;
    }
    n += most;
    i = j;
  }
  return n;
}

size_t WindowOperator::RecordedChangesOf(const std::vector<WindowOperator*>& shards) {
  size_t n = 0;
  for (const WindowOperator* s : shards) n += s->recorded_changes();
  if (shards.size() == 1) return n;
  std::vector<Nanos> dropped;
  for (const WindowOperator* s : shards) s->AppendDroppedPanes(&dropped);
  std::sort(dropped.begin(), dropped.end());
  const size_t all = dropped.size();
  dropped.erase(std::unique(dropped.begin(), dropped.end()), dropped.end());
  return n - (all - dropped.size());
}

namespace {

// Reads the zone block of a version 5 section (nothing of a version 3 or 4 one).
bool ReadZoneBlock(ByteReader* r, uint32_t version, SavedZoneRules* out) {
  if (version < 5) return true;
  out->recorded = true;
  out->zone_db = std::string(r->Bytes());
  const uint32_t n = r->U32();
  for (uint32_t i = 0; i < n && r->ok(); ++i) {
    const Nanos start = r->I64();
    const Nanos end = r->I64();
    if (start >= end) return false;
    out->windows.push_back(WindowBounds{start, end});
  }
  return r->ok();
}

std::string ZoneDbName(const std::string& v) {
  return v.empty() ? "of unknown version" : QuoteForMessage(v);
}

}  // namespace

bool DecodeSavedZoneRules(std::string_view data, uint32_t version, SavedZoneRules* out) {
  if (version < 3 || version > WindowOperator::kVersion) return false;
  ByteReader r(data);
  r.I64();
  return r.ok() && ReadZoneBlock(&r, version, out);
}

Status WindowOperator::LoadShards(const std::vector<WindowOperator*>& shards,
                                  std::string_view data, uint32_t version, RowSource* rows) {
  const Status damaged =
      Status::Corruption("a window row or the operator's section does not decode");
  ByteReader r(data);
  const Nanos w = r.I64();
  SavedZoneRules saved;
  if (!r.ok() || !ReadZoneBlock(&r, version, &saved)) return damaged;
  // The open windows' bounds were computed with the zone's rules of the run that saved them:
  // where today's rules give one of them other bounds (a government moved a daylight-saving
  // change, and the zone database was updated), its saved state no longer fits a window.
  if (has_zone_) {
    for (const WindowBounds& b : saved.windows) {
      const WindowBounds now = BoundsNow(b.start);
      if (now.start == b.start && now.end == b.end) continue;
      return Status::Refused(fmt::format(
          "the state's open windows were computed with zone database {} and this system has "
          "zone database {}, whose rules for {} give the open window [{}, {}) other bounds (its "
          "start is in the window [{}, {}) now): its saved state would be misplaced; it was not "
          "changed. Finish the job "
          "where zone database {} is installed (TZDIR can name its directory), or start a new "
          "--state file",
          ZoneDbName(saved.zone_db), ZoneDbName(zone_db_), QuoteForMessage(zone_name_), FormatRfc3339(b.start),
          FormatRfc3339(b.end), FormatRfc3339(now.start), FormatRfc3339(now.end),
          ZoneDbName(saved.zone_db)));
    }
  }
  watermark_ = w;
  for (WindowOperator* s : shards) s->watermark_ = w;
  const uint32_t n = static_cast<uint32_t>(shards.size());
  for (RowSource::Row row; rows->Next(&row);) {
    std::string_view key;
    if (!RowKeyOf(row.first, &key)) return damaged;
    WindowOperator* to = n == 1 ? shards[0] : shards[WorkerOfGroup(KeyGroupOf(key), n)];
    if (!to->RestoreRow(row.first, row.second)) return damaged;
  }
  for (uint32_t i = 0; i < n; ++i) {
    ByteReader meta = r;
    if (!shards[i]->RestoreMeta(&meta, KeyShard{i, n}) || !meta.ok() || !meta.at_end())
      return damaged;
  }
  // Both versions known and different, and no window moved: said, as the answers of windows
  // opened from now may differ from those the old database would have given.
  if (has_zone_ && !saved.zone_db.empty() && !zone_db_.empty() && saved.zone_db != zone_db_) {
    zone_db_note_ = fmt::format(
        "the state was saved with zone database {} and this system has zone database {}; its "
        "rules for {} give the {} open window{} the bounds {} saved with, so the job goes on, "
        "and windows opened from now follow zone database {}",
        ZoneDbName(saved.zone_db), ZoneDbName(zone_db_), QuoteForMessage(zone_name_),
        saved.windows.size(), saved.windows.size() == 1 ? "" : "s",
        saved.windows.size() == 1 ? "it was" : "they were", ZoneDbName(zone_db_));
  }
  return Status::Ok();
}

void WindowOperator::DescribeSection(bool session, StateCodec* c) {
  c->I64("watermark");
  c->Bytes("zone_database");
  const uint64_t n = c->List("zone_windows");
  for (uint64_t i = 0; i < n && c->ok(); ++i) {
    c->Object("");
    c->I64("start");
    c->I64("end");
    c->End();
  }
  c->End();
  if (!session) PaneOperator::DescribeMeta(c);
}

void DescribeWindowRowKey(const WindowRowForm& form, StateCodec* c) {
  if (form.session) {
    SessionOperator::DescribeRowKey(c);
  } else {
    PaneOperator::DescribeRowKey(c);
  }
}

void DescribeWindowRowValue(const WindowRowForm& form, StateCodec* c) {
  if (form.session) {
    SessionOperator::DescribeRowValue(form, c);
  } else {
    PaneOperator::DescribeRowValue(form, c);
  }
}

}  // namespace logtide
