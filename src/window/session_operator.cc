#include "window/session_operator.h"

#include <algorithm>

#include "json/value.h"
#include "window/session_merge.h"

namespace logtide {

SessionOperator::SessionOperator(const WindowSpec& spec, Nanos lateness, EmitMode mode, Nanos early,
                                 Deps deps)
    // Timers of open sessions spread over about a gap (plus lateness) ahead of the watermark:
    // a sixteenth of it a bucket.
    : WindowOperator(lateness, mode, early, deps, std::max<Nanos>(spec.gap / 16, 1)),
      gap_(spec.gap) {}

void SessionOperator::SetEarlyTimer(uint32_t key, Session* s) {
  const Nanos at = NextEarly(s->start);
  if (at >= s->end || at == s->next_early) return;
  s->next_early = at;
  timers_.Set(TimeDomain::kEventTime, Timer{at, s->end, s->start, key, Timer::kEarly});
}

SessionOperator::~SessionOperator() = default;

SessionOperator::Session* SessionOperator::Find(uint32_t key, Nanos start, Nanos end) {
  Session* s = FindStart(key, start);
  return s != nullptr && s->end == end ? s : nullptr;
}

SessionOperator::Session* SessionOperator::FindStart(uint32_t key, Nanos start) {
  if (key >= sessions_.size()) return nullptr;
  for (Session& s : sessions_[key]) {
    if (s.start == start) return &s;
  }
  return nullptr;
}

void SessionOperator::Remove(uint32_t key, Nanos start, Nanos end) {
  if (key >= sessions_.size()) return;
  SessionList& list = sessions_[key];
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].start == start && list[i].end == end) {
      deps_.acc->Free(list[i].slot);
      list.erase(list.begin() + static_cast<ptrdiff_t>(i));
      --open_;
      if (list.empty()) {
        // The key goes away with its last session and its id may be reused: record its bytes.
        if (track_changes_) erased_.emplace_back(deps_.keys->encoded(key));
        if (key < dirty_.size()) dirty_[key] = 0;
      } else {
        MarkDirty(key);
      }
      deps_.keys->Unref(key);
      break;
    }
  }
}

bool SessionOperator::PredictAdd(Nanos t, AddResult* out) {
  // The session an event ends up in ends at t + gap or later: when that is not late, the event
  // is not either.
  if (IsLate(SatAdd(t, gap_))) return false;
  *out = AddResult{1, 0};
  return true;
}

AddResult SessionOperator::Add(const KeyedEvent& e) {
  const uint32_t key = e.key;
  const Nanos t = e.time;
  SessionList* list = key < sessions_.size() ? &sessions_[key] : nullptr;
  // Sessions overlapping or touching [t, t + gap) merge with it.
  const SessionMerge m = list != nullptr ? MergeWindow(*list, t, SatAdd(t, gap_))
                                         : SessionMerge{0, 0, t, SatAdd(t, gap_)};
  const size_t first = m.first, last = m.last;
  const Nanos start = m.start, end = m.end;
  // The session the event would end up in decides lateness (Flink: merge, then isWindowLate).
  if (IsLate(end)) return AddResult{1, 1};

  if (list == nullptr) {
    sessions_.resize(key + 1);
    list = &sessions_[key];
  }
  Session* target;
  bool changed;
  bool new_start;  // a session starting at `start` is new
  if (first == last) {
    Session s{start, end, deps_.acc->Allocate(), -1, true, kMinusInfinity};
    list->insert(list->begin() + static_cast<ptrdiff_t>(first), s);
    deps_.keys->Ref(key);
    ++open_;
    target = &(*list)[first];
    changed = new_start = true;
  } else {
    target = &(*list)[first];
    new_start = target->start != start;
    changed = new_start || target->end != end;
    for (size_t i = first + 1; i < last; ++i) {
      deps_.acc->Merge(target->slot, (*list)[i].slot);
      deps_.acc->Free((*list)[i].slot);
      target->last_revision = std::max(target->last_revision, (*list)[i].last_revision);
      deps_.keys->Unref(key);
      --open_;
    }
    list->erase(list->begin() + static_cast<ptrdiff_t>(first + 1),
                list->begin() + static_cast<ptrdiff_t>(last));
    target = &(*list)[first];
    // A timer set for the old start is stale: its grid starts at the new one.
    if (new_start) target->next_early = kMinusInfinity;
    target->start = start;
    target->end = end;
  }
  deps_.acc->Add(target->slot, e.inputs, t, e.seq, deps_.wrong_type);
  target->changed = true;
  MarkDirty(key);
  if (early_ > 0 && target->end > watermark_) SetEarlyTimer(key, target);

  if (mode_ == EmitMode::kUpdate && target->end <= watermark_) {
    // A session that is complete at the current watermark (late, not too late): its next
    // revision goes out now, and it is dropped once it is late.
    target->last_revision++;
    target->changed = false;
    results_.push_back(WindowResult{target->start, target->end, key, target->slot,
                                    target->last_revision, RecordPhase::kLate, false});
    Emit(&results_, FiringOrder{});
    if (changed)
      timers_.Set(TimeDomain::kEventTime, Timer{CleanupTime(target->end), target->end,
                                                target->start, key, Timer::kCleanup});
  } else if (mode_ == EmitMode::kFinal ? new_start : changed) {
    // In final mode a session keeps one timer, found by its start: a session that only grew
    // later is set again when that timer goes off (OnTimer), not at every event.
    timers_.Set(TimeDomain::kEventTime,
                Timer{FireTime(target->end), target->end, target->start, key, Timer::kFire});
  }
  return AddResult{1, 0};
}

void SessionOperator::OnTimer(TimeDomain, const Timer& timer) {
  const Nanos w = watermark_;
  if (timer.kind == Timer::kEarly) {
    Session* s = FindStart(timer.key, timer.start);
    // Stale (the session merged, moved its start or was set again), or complete: it fires.
    if (s == nullptr || s->next_early != timer.time || s->end <= w) return;
    if (s->changed) {
      s->changed = false;
      MarkDirty(timer.key);
      due_.push_back(timer.time);
      results_.push_back(WindowResult{s->start, s->end, timer.key, s->slot, ++s->last_revision,
                                      RecordPhase::kEarly, false});
    }
    SetEarlyTimer(timer.key, s);
    return;
  }
  if (mode_ == EmitMode::kFinal) {
    Session* s = FindStart(timer.key, timer.start);
    if (s == nullptr) return;    // merged into a session that starts earlier
    if (FireTime(s->end) > w) {  // it grew since the timer was set
      timers_.Set(TimeDomain::kEventTime,
                  Timer{FireTime(s->end), s->end, s->start, timer.key, Timer::kFire});
      return;
    }
    to_remove_.push_back(Timer{timer.time, s->end, s->start, timer.key, timer.kind});
    due_.push_back(FireTime(s->end));
    results_.push_back(WindowResult{s->start, s->end, timer.key, s->slot,
                                    revised() ? s->last_revision + 1 : -1, RecordPhase::kOnTime,
                                    true});
    return;
  }
  // update mode: a timer is set at every change and names the session's (start, end).
  Session* s = Find(timer.key, timer.start, timer.end);
  if (s == nullptr) return;  // merged into another session since the timer was set
  if (timer.kind == Timer::kCleanup) {
    // With lateness its last record was written before: a closing record now.
    if (!FireIsFinal()) {
      due_.push_back(CleanupTime(s->end));
      results_.push_back(WindowResult{s->start, s->end, timer.key, s->slot, ++s->last_revision,
                                      RecordPhase::kLate, true});
    }
    to_remove_.push_back(timer);
    return;
  }
  // update mode: the next revision now, then the session waits for its cleanup.
  const int64_t revision = ++s->last_revision;
  s->changed = false;
  MarkDirty(timer.key);
  timers_.Set(TimeDomain::kEventTime,
              Timer{CleanupTime(s->end), s->end, s->start, timer.key, Timer::kCleanup});
  due_.push_back(s->end);
  results_.push_back(WindowResult{s->start, s->end, timer.key, s->slot, revision,
                                  RecordPhase::kOnTime, FireIsFinal()});
}

void SessionOperator::EmitOpen() {
  if (!revised()) return;
  // The open sessions (the watermark before their end) changed since their last record. (In
  // final mode a session past its end waits for its on-time record, as without a stop.)
  for (uint32_t key = 0; key < sessions_.size(); ++key) {
    for (Session& s : sessions_[key]) {
      if (!s.changed || s.end <= watermark_) continue;
      s.changed = false;
      results_.push_back(WindowResult{s.start, s.end, key, s.slot, ++s.last_revision,
                                      RecordPhase::kEarly, false});
    }
    if (!results_.empty() && results_.back().key == key) MarkDirty(key);
  }
  Emit(&results_, FiringOrder{});
}

void SessionOperator::AfterTimers() {
  // Written in the order they became due, then (EmitWindows) by end, start and key: a
  // session's closing record after its on-time one. Without revisions each is due at its end
  // (+ lateness): one call sorts them all.
  // Each firing stands at the time it became due (FiringOrder), all at 0 without revisions.
  if (!revised()) {
    Emit(&results_, FiringOrder{});
  } else if (std::all_of(due_.begin(), due_.end(), [&](Nanos d) { return d == due_[0]; })) {
    if (!due_.empty()) Emit(&results_, FiringOrder{due_[0]});
  } else {
    order_.resize(results_.size());
    for (uint32_t i = 0; i < order_.size(); ++i) order_[i] = i;
    std::stable_sort(order_.begin(), order_.end(),
                     [&](uint32_t a, uint32_t b) { return due_[a] < due_[b]; });
    std::vector<WindowResult> group;
    for (size_t i = 0; i < order_.size();) {
      size_t j = i;
      while (j < order_.size() && due_[order_[j]] == due_[order_[i]])
        group.push_back(results_[order_[j++]]);
      Emit(&group, FiringOrder{due_[order_[i]]});
      i = j;
    }
    results_.clear();
  }
  due_.clear();
  for (const Timer& t : to_remove_) Remove(t.key, t.start, t.end);
  to_remove_.clear();
}

// Rows: key bytes -> u32 sessions, per session (by start): i64 start, i64 end, i64 last
// revision, accumulators; then with revisions (update mode, --early or --early-every), per
// session u8 1 if
// it changed since its last record, else 0 (absent in rows written without --early, or by
// section version 3 in update mode: taken as changed). Meta: nothing.
// Timers are not stored: RestoreRow derives them from the sessions and the watermark.
void SessionOperator::SnapshotRows(std::vector<StateOp>* ops, bool all) {
  if (all) {
    erased_.clear();
    for (uint32_t key = 0; key < sessions_.size(); ++key) {
      if (!sessions_[key].empty()) MarkDirty(key);
    }
  }
  for (std::string& k : erased_) ops->push_back(StateOp{StateOp::kErase, std::move(k), ""});
  erased_.clear();
  for (uint32_t key : dirty_list_) {
    if (dirty_[key] == 0) continue;
    dirty_[key] = 0;
    if (key >= sessions_.size() || sessions_[key].empty()) continue;
    const SessionList& list = sessions_[key];
    StateOp op{StateOp::kPut, std::string(deps_.keys->encoded(key)), ""};
    ByteWriter w(&op.value);
    w.U32(static_cast<uint32_t>(list.size()));
    for (const Session& s : list) {
      w.I64(s.start);
      w.I64(s.end);
      w.I64(s.last_revision);
      deps_.acc->Snapshot(s.slot, &w);
    }
    if (revised()) {
      for (const Session& s : list) w.U8(s.changed ? 1 : 0);
    }
    ops->push_back(std::move(op));
  }
  dirty_list_.clear();
}

void SessionOperator::DescribeRowValue(const WindowRowForm& form, StateCodec* c) {
  const uint64_t n = c->List("sessions");
  for (uint64_t i = 0; i < n && c->ok(); ++i) {
    c->Object("");
    c->I64("start");
    c->I64("end");
    c->I64("last_revision");
    c->Object("aggs");
    form.acc->Describe(*form.aggs, c);
    c->End();
    c->End();
  }
  c->End();
  if (form.revised && c->Has("changed")) {
    c->ListOf("changed", n);
    for (uint64_t i = 0; i < n && c->ok(); ++i) c->Bool("");
    c->End();
  }
}

bool SessionOperator::RestoreRow(std::string_view k, std::string_view v) {
  if (!IsEncodedKey(k, deps_.key_fields)) return false;
  uint32_t key = deps_.keys->Intern(k);
  ByteReader r(v);
  uint32_t n = r.U32();
  if (key >= sessions_.size()) sessions_.resize(key + 1);
  SessionList& list = sessions_[key];
  for (uint32_t j = 0; j < n && r.ok(); ++j) {
    Session s;
    s.start = r.I64();
    s.end = r.I64();
    s.last_revision = r.I64();
    s.changed = true;
    s.next_early = kMinusInfinity;
    // A key's sessions, as Add keeps them: sorted by start, disjoint and not touching; a
    // revision number that can still be followed by the next.
    if (!r.ok() || s.start >= s.end || (!list.empty() && list.back().end >= s.start) ||
        s.last_revision < -1 || s.last_revision == INT64_MAX)
      return false;
    s.slot = deps_.acc->Allocate();
    deps_.acc->Restore(s.slot, &r);
    deps_.keys->Ref(key);
    ++open_;
    list.push_back(s);
    // An emitted session that is still complete waits only for its cleanup; any other waits
    // to fire (final mode keeps no emitted session).
    if (mode_ == EmitMode::kUpdate && s.last_revision >= 0 && s.end <= watermark_) {
      timers_.Set(TimeDomain::kEventTime,
                  Timer{CleanupTime(s.end), s.end, s.start, key, Timer::kCleanup});
    } else {
      timers_.Set(TimeDomain::kEventTime,
                  Timer{FireTime(s.end), s.end, s.start, key, Timer::kFire});
    }
  }
  if (revised() && r.ok() && !r.at_end()) {
    for (Session& s : list) {
      const uint8_t c = r.U8();
      if (c > 1) return false;
      s.changed = c == 1;
    }
  }
  if (!r.ok() || !r.at_end() || list.empty()) return false;
  if (early_ > 0) {
    for (Session& s : list) {
      if (s.end > watermark_) SetEarlyTimer(key, &s);
    }
  }
  return true;
}

}  // namespace logtide
