#include "window/pane_operator.h"

#include <algorithm>

#include "json/value.h"
#include "util/radix_sort.h"

namespace logtide {

PaneOperator::PaneOperator(const WindowSpec& spec, Nanos lateness, EmitMode mode, Nanos early,
                           Deps deps)
    // Fire timers come one a slide, cleanup timers one a pane: a bucket of a slide holds few.
    : WindowOperator(lateness, mode, early, deps, spec.slide), spec_(spec), pane_(spec.pane()) {}

PaneOperator::~PaneOperator() = default;

void PaneOperator::LocatePane(Nanos t) {
  // Every time in one pane has the same windows (the pane divides the slide and the size):
  // consecutive events in one pane skip the divisions.
  if (t >= recent_pane_ && t < recent_pane_end_) return;
  if (spec_.is_calendar()) [[unlikely]] {
    // One pane is one window, of the length the local calendar gives it.
    const WindowSpec::Bounds w = spec_.Window(t);
    recent_pane_ = w.start;
    recent_pane_end_ = w.end;
  } else {
    recent_pane_ = spec_.OnGrid(t, pane_);
    recent_pane_end_ = SatAdd(recent_pane_, pane_);
  }
  const Nanos last_end = spec_.LastWindowEnd(t);
  recent_first_end_ = spec_.NextEndAfter(t);
  // At most kMaxWindowsPerEvent (window_spec.h).
  recent_windows_ = static_cast<uint32_t>(SatSub(last_end, recent_first_end_) / spec_.slide + 1);
  recent_first_late_ = CleanupTime(recent_first_end_);
  recent_last_late_ = CleanupTime(last_end);
  recent_ = nullptr;
}

AddResult PaneOperator::LateWindows() const {
  // IsLate(end) of the pane's last and first windows, with their cleanup times kept.
  if (watermark_ >= recent_last_late_) return AddResult{recent_windows_, recent_windows_};
  uint32_t missed = 0;
  if (watermark_ >= recent_first_late_) [[unlikely]] {
    // The windows ending at or before watermark - lateness are late; the last one is not.
    const Nanos late_to = SatSub(watermark_, lateness_);
    missed = static_cast<uint32_t>(
        std::min<Nanos>(SatSub(late_to, recent_first_end_) / spec_.slide + 1, recent_windows_ - 1));
  }
  return AddResult{recent_windows_, missed};
}

bool PaneOperator::PredictAdd(Nanos t, AddResult* out) {
  LocatePane(t);
  *out = LateWindows();
  return true;
}

AddResult PaneOperator::Add(const KeyedEvent& e) {
  const Nanos t = e.time;
  LocatePane(t);
  const AddResult late = LateWindows();
  if (!late.accepted()) return late;
  const Nanos p = recent_pane_;
  if (recent_ == nullptr) recent_ = GetPane(p);
  uint32_t slot = FindSlot(*recent_, e.key);
  if (slot == KeyTable::kNoSlot) {
    slot = deps_.acc->Allocate();
    AddEntry(recent_, e.key, slot);
    last_pane_keys_ = std::max(last_pane_keys_, recent_->entries.size());
  }
  deps_.acc->Add(slot, e.inputs, t, e.seq, deps_.wrong_type);
  MarkDirty(p, e.key, slot);
  if (revised()) {
    if (slot >= changed_at_.size()) changed_at_.resize(slot + 1024, kUnchanged);
    changed_at_[slot] = ChangedAt(watermark_);
  }

  // update mode: windows of t already emitted (end <= watermark) and not yet late get their
  // next revision now, in window order.
  if (mode_ == EmitMode::kUpdate && spec_.NextEndAfter(t) <= watermark_) {
    for (Nanos s = spec_.StartOfWindowEnding(spec_.NextEndAfter(t)); s <= spec_.LastWindowStart(t);
         s = SatAdd(s, spec_.slide)) {
      Nanos end = spec_.EndOfWindowStarting(s);
      if (end > watermark_ || IsLate(end)) continue;
      uint32_t slot = MergedSlot(e.key, s, end);
      results_.push_back(WindowResult{s, end, e.key, slot,
                                      TakeRevision(s, end, e.key, RecordPhase::kLate),
                                      RecordPhase::kLate, false});
    }
    EmitAndRelease(FiringOrder{});
  }
  return late;
}

PaneOperator::Pane* PaneOperator::GetPane(Nanos start) {
  auto [it, is_new] = panes_.try_emplace(start);
  if (is_new) {
    it->second = std::make_unique<Pane>();
    // Sized like the last pane that filled: panes of a stream hold similar numbers of keys.
    it->second->entries.reserve(last_pane_keys_);
    SetPaneTimers(start);
  }
  return it->second.get();
}

void PaneOperator::SetPaneTimers(Nanos start) {
  const Nanos last_end = spec_.LastWindowEnd(start);
  // (Events whose windows are not finite are refused before they get here: see
  // WindowSpec::WindowableRange. The bound on e keeps a saturated end from looping.)
  for (Nanos e = spec_.NextEndAfter(start); e != kMinusInfinity && e != kPlusInfinity;
       e = SatAdd(e, spec_.slide)) {
    // A window already due has fired (or was empty) when the watermark passed it.
    if (FireTime(e) > watermark_ && fire_set_.insert(e).second)
      timers_.Set(TimeDomain::kEventTime,
                  Timer{FireTime(e), e, spec_.StartOfWindowEnding(e), 0, Timer::kFire});
    if (early_ > 0) SetEarlyTimer(spec_.StartOfWindowEnding(e), e);
    // Update mode with lateness: the window's records are closed when it is late.
    if (!FireIsFinal() && CleanupTime(e) > watermark_ && close_set_.insert(e).second)
      timers_.Set(TimeDomain::kEventTime,
                  Timer{CleanupTime(e), e, spec_.StartOfWindowEnding(e), 0, Timer::kClose});
    if (e >= last_end) break;
  }
  timers_.Set(TimeDomain::kEventTime,
              Timer{CleanupTime(last_end), kPlusInfinity, start, 0, Timer::kCleanup});
}

void PaneOperator::SetEarlyTimer(Nanos start, Nanos end) {
  if (watermark_ >= end || early_set_.contains(start)) return;
  const Nanos at = NextEarly(start);
  if (at >= end) return;
  early_set_.insert(start);
  timers_.Set(TimeDomain::kEventTime, Timer{at, end, start, 0, Timer::kEarly});
}

void PaneOperator::OnTimer(TimeDomain, const Timer& t) {
  switch (t.kind) {
    case Timer::kFire:
      fire_set_.erase(t.end);
      // Window by window, in end order, which is the order of the records: a watermark that
      // passes many windows at once (the end of the input) holds one window's results, not all.
      CollectWindow(t.start, t.end, RecordPhase::kOnTime, FireIsFinal());
      EmitAndRelease(TimerOrder(t));
      break;
    case Timer::kEarly:
      early_set_.erase(t.start);
      // A watermark already at the window's end fires it: no provisional record before.
      if (watermark_ >= t.end) break;
      // The keys changed since the last early time (the one before t.time or earlier: the
      // timer is set at the first early time after the watermark): all of them the first time,
      // but those a stop wrote since.
      CollectWindow(t.start, t.end, RecordPhase::kEarly, false,
                    SatSub(t.time, early_) > t.start ? SatSub(t.time, early_)
                                                     : kMinusInfinity + 1);
      EmitAndRelease(TimerOrder(t));
      SetEarlyTimer(t.start, t.end);
      break;
    case Timer::kClose:
      close_set_.erase(t.end);
      CollectWindow(t.start, t.end, RecordPhase::kLate, true);
      EmitAndRelease(TimerOrder(t));
      break;
    case Timer::kCleanup:
      Purge(t.start);
      break;
    case Timer::kExpire:
      revisions_.erase(PaneKey{t.start, t.key});
      break;
  }
}

void PaneOperator::AddEntry(Pane* p, uint32_t key, uint32_t slot) {
  KeyTable& keys = *deps_.keys;
  if (keys.pane(key) != nullptr) {
    // The key's slot in the pane it was in before (still open: Purge clears the key's pane)
    // stays findable there.
    static_cast<Pane*>(keys.pane(key))->moved.emplace(key, keys.pane_slot(key));
  }
  keys.set_pane(key, p, slot);
  keys.Ref(key);
  p->entries.push_back(Entry{key, slot});
  ++open_entries_;
}

uint32_t PaneOperator::MergedSlot(uint32_t key, Nanos start, Nanos end) {
  uint32_t found = UINT32_MAX;
  uint32_t temp = UINT32_MAX;
  for (auto pit = panes_.lower_bound(start); pit != panes_.end() && pit->first < end; ++pit) {
    const uint32_t slot = FindSlot(*pit->second, key);
    if (slot == KeyTable::kNoSlot) continue;
    if (found == UINT32_MAX) {
      found = slot;
      continue;
    }
    if (temp == UINT32_MAX) {
      temp = deps_.acc->Allocate();
      temp_slots_.push_back(temp);
      deps_.acc->Merge(temp, found);
      found = temp;
    }
    deps_.acc->Merge(temp, slot);
  }
  return found;
}

int64_t PaneOperator::TakeRevision(Nanos start, Nanos end, uint32_t key, RecordPhase phase) {
  if (!revised()) return -1;
  if (lateness_ == 0 && early_ == 0 && phase != RecordPhase::kEarly) {
    // Late at once: no later revision can exist, and the first is 0 unless a stop wrote one
    // before (EmitOpen: a stop's or --early-every's, the only early records without --early).
    auto it = revisions_.find(PaneKey{start, key});
    return it == revisions_.end() ? 0 : it->second.next++;
  }
  auto [it, inserted] = revisions_.try_emplace(PaneKey{start, key}, Revision{0, CleanupTime(end)});
  if (inserted)
    timers_.Set(TimeDomain::kEventTime,
                Timer{it->second.expiry, kPlusInfinity, start, key, Timer::kExpire});
  return it->second.next++;
}

void PaneOperator::CollectWindow(Nanos start, Nanos end, RecordPhase phase, bool final,
                                 Nanos changed_from) {
  scratch_.clear();
  size_t panes = 0;
  for (auto it = panes_.lower_bound(start); it != panes_.end() && it->first < end; ++it) {
    scratch_.insert(scratch_.end(), it->second->entries.begin(), it->second->entries.end());
    ++panes;
  }
  // Group by key, keeping pane order within a key so merges happen in time order. (Within one
  // pane each key is there once: nothing to group.)
  if (panes > 1 && scratch_.size() < 256) {
    std::stable_sort(scratch_.begin(), scratch_.end(),
                     [](const Entry& a, const Entry& b) { return a.key < b.key; });
  } else if (panes > 1) {
    RadixSort<11>(scratch_.data(), scratch_.data() + scratch_.size(), &radix_scratch_,
                  [](const Entry& e) { return e.key; });
  }
  for (size_t i = 0; i < scratch_.size();) {
    size_t j = i + 1;
    while (j < scratch_.size() && scratch_[j].key == scratch_[i].key) ++j;
    if (changed_from != kMinusInfinity) {
      bool changed = false;
      for (size_t k = i; k < j && !changed; ++k)
        changed = changed_at_[scratch_[k].slot] >= changed_from;
      if (!changed) {
        i = j;
        continue;
      }
    }
    uint32_t slot = scratch_[i].slot;
    if (j - i > 1) {
      slot = deps_.acc->Allocate();
      temp_slots_.push_back(slot);
      for (size_t k = i; k < j; ++k) deps_.acc->Merge(slot, scratch_[k].slot);
    }
    const uint32_t key = scratch_[i].key;
    results_.push_back(
        WindowResult{start, end, key, slot, TakeRevision(start, end, key, phase), phase, final});
    i = j;
  }
}

Nanos PaneOperator::LastEarly(Nanos start, Nanos end) const {
  if (early_ == 0 || watermark_ < start) return kMinusInfinity + 1;
  // The last start + k*early at or before the watermark, and before the end.
  const Nanos last = std::min(watermark_, SatSub(end, 1));
  const Nanos k = SatSub(last, start) / early_;
  return k >= 1 ? start + k * early_ : kMinusInfinity + 1;
}

void PaneOperator::EmitOpen() {
  if (!revised()) return;
  // The open windows (the watermark before their end): of those not yet due (their fire
  // timer is set), in end order. (In final mode a window past its end waits for its on-time
  // record at end + lateness, as without a stop.)
  std::vector<Nanos> ends;
  for (Nanos end : fire_set_) {
    if (end > watermark_) ends.push_back(end);
  }
  std::sort(ends.begin(), ends.end());
  for (Nanos end : ends) {
    const Nanos start = spec_.StartOfWindowEnding(end);
    CollectWindow(start, end, RecordPhase::kEarly, false, LastEarly(start, end));
  }
  EmitAndRelease(FiringOrder{});
  // Every change of an open window is now in a record, written now or at an early time (and
  // the flags matter for open windows only). Saved so, a resumed run writes a pair again only
  // when it changes.
  for (const auto& [start, pane] : panes_) {
    for (const Entry& e : pane->entries) {
      if (changed_at_[e.slot] == kUnchanged) continue;
      changed_at_[e.slot] = kUnchanged;
      MarkDirty(start, e.key, e.slot);
    }
  }
}

void PaneOperator::EmitAndRelease(const FiringOrder& order) {
  Emit(&results_, order);
  for (uint32_t s : temp_slots_) deps_.acc->Free(s);
  temp_slots_.clear();
}

void PaneOperator::Purge(Nanos start) {
  auto it = panes_.find(start);
  if (it == panes_.end()) return;
  const std::vector<Entry>& entries = it->second->entries;
  if (track_changes_ && !entries.empty()) purged_.push_back(start);
  for (const Entry& e : entries) {
    if (e.slot < dirty_.size()) dirty_[e.slot] = 0;
    deps_.acc->Free(e.slot);
    if (deps_.keys->pane(e.key) == it->second.get())
      deps_.keys->set_pane(e.key, nullptr, KeyTable::kNoSlot);
    deps_.keys->Unref(e.key);
  }
  open_entries_ -= entries.size();
  // The next panes are sized like the ones purged now, not like the largest ever seen.
  last_pane_keys_ = entries.size();
  if (it->second.get() == recent_) recent_ = nullptr;
  panes_.erase(it);
}

namespace {

// Row keys sort by pane start: the start as big-endian with the sign bit flipped, then the key.
std::string PaneRowKey(Nanos start, std::string_view key) {
  uint64_t u = static_cast<uint64_t>(start) ^ (uint64_t{1} << 63);
  std::string k(8, '\0');
  for (int i = 7; i >= 0; --i, u >>= 8) k[static_cast<size_t>(i)] = static_cast<char>(u & 0xFF);
  k.append(key);
  return k;
}

Nanos PaneRowStart(std::string_view k) {
  uint64_t u = 0;
  for (int i = 0; i < 8; ++i) u = (u << 8) | static_cast<uint8_t>(k[static_cast<size_t>(i)]);
  return static_cast<Nanos>(u ^ (uint64_t{1} << 63));
}

}  // namespace

// Rows: PaneRowKey(pane start, key) -> accumulators, then with revisions (update mode,
// --early or --early-every) i64 the watermark when the state last changed, or INT64_MIN when a stop wrote it
// since (absent in rows written without --early, or by section version 3 in update mode:
// taken as the watermark of the checkpoint, changed since the last early time). Meta: u32
// revisions, per revision (sorted by window start, then key bytes): i64 window start, bytes
// key, i64 next revision, i64 expiry. Timers are not stored: RestoreRow and RestoreMeta set them
// again from the panes, the revisions and the watermark.
void PaneOperator::SnapshotRows(std::vector<StateOp>* ops, bool all) {
  if (all) {
    purged_.clear();
    for (const auto& [start, pane] : panes_) {
      for (const Entry& e : pane->entries) MarkDirty(start, e.key, e.slot);
    }
  }
  for (Nanos start : purged_)
    ops->push_back(StateOp{StateOp::kErasePrefix, PaneRowKey(start, ""), ""});
  purged_.clear();
  for (const PaneKey& pk : dirty_list_) {
    auto pit = panes_.find(pk.start);
    if (pit == panes_.end()) continue;
    const uint32_t slot = FindSlot(*pit->second, pk.key);
    if (slot == KeyTable::kNoSlot || dirty_[slot] == 0) continue;
    dirty_[slot] = 0;
    StateOp op{StateOp::kPut, PaneRowKey(pk.start, deps_.keys->encoded(pk.key)), ""};
    ByteWriter w(&op.value);
    deps_.acc->Snapshot(slot, &w);
    if (revised()) w.I64(changed_at_[slot]);
    ops->push_back(std::move(op));
  }
  dirty_list_.clear();
}

void PaneOperator::DescribeRowKey(StateCodec* c) {
  c->OrderedI64("start");
  c->Key("key");
}

void PaneOperator::DescribeRowValue(const WindowRowForm& form, StateCodec* c) {
  c->Object("aggs");
  form.acc->Describe(*form.aggs, c);
  c->End();
  if (form.revised && c->Has("changed_at")) c->I64("changed_at");
}

void PaneOperator::DescribeMeta(StateCodec* c) {
  const uint64_t n = c->List("revisions");
  for (uint64_t i = 0; i < n && c->ok(); ++i) {
    c->Object("");
    c->I64("start");
    c->KeyBytes("key");
    c->I64("next");
    c->I64("expiry");
    c->End();
  }
  c->End();
}

void PaneOperator::SnapshotMeta(const std::vector<WindowOperator*>& shards,
                                ByteWriter* meta) const {
  std::vector<std::tuple<Nanos, std::string_view, int64_t, Nanos>>
      revs;  // start, key, next, expiry
  size_t n = 0;
  for (const WindowOperator* op : shards)
    n += static_cast<const PaneOperator*>(op)->revisions_.size();
  revs.reserve(n);
  for (const WindowOperator* op : shards) {
    const auto* shard = static_cast<const PaneOperator*>(op);
    for (const auto& [pk, rev] : shard->revisions_)
      revs.emplace_back(pk.start, shard->deps_.keys->encoded(pk.key), rev.next, rev.expiry);
  }
  std::sort(revs.begin(), revs.end());
  meta->U32(static_cast<uint32_t>(revs.size()));
  for (const auto& [start, key, next, expiry] : revs) {
    meta->I64(start);
    meta->Bytes(key);
    meta->I64(next);
    meta->I64(expiry);
  }
}

void PaneOperator::OpenWindows(std::vector<WindowBounds>* out) const {
  if (!spec_.is_calendar()) return;
  for (const auto& [start, pane] : panes_)
    out->push_back(WindowBounds{start, spec_.EndOfWindowStarting(start)});
}

WindowBounds PaneOperator::BoundsNow(Nanos start) const {
  if (!spec_.is_calendar()) return WindowBounds{start, spec_.EndOfWindowStarting(start)};
  return spec_.Window(start);
}

bool PaneOperator::RowKeyOf(std::string_view row_key, std::string_view* key) const {
  if (row_key.size() < 8) return false;
  *key = row_key.substr(8);
  return true;
}

bool PaneOperator::RestoreRow(std::string_view k, std::string_view v) {
  std::string_view key_bytes;
  if (!RowKeyOf(k, &key_bytes) || !IsEncodedKey(key_bytes, deps_.key_fields)) return false;
  Nanos start = PaneRowStart(k);
  if (spec_.PaneStart(start) != start) return false;  // a pane starts where its window does
  uint32_t key = deps_.keys->Intern(key_bytes);
  uint32_t slot = deps_.acc->Allocate();
  ByteReader r(v);
  deps_.acc->Restore(slot, &r);
  if (revised()) {
    if (slot >= changed_at_.size()) changed_at_.resize(slot + 1024, kUnchanged);
    changed_at_[slot] = r.ok() && !r.at_end() ? r.I64() : ChangedAt(watermark_);
  }
  if (!r.ok() || !r.at_end()) return false;
  Pane* pane = GetPane(start);
  if (FindSlot(*pane, key) != KeyTable::kNoSlot) return false;  // a row twice
  AddEntry(pane, key, slot);
  return true;
}

bool PaneOperator::RestoreMeta(ByteReader* meta, const KeyShard& shard) {
  uint32_t revs = meta->U32();
  for (uint32_t i = 0; i < revs && meta->ok(); ++i) {
    Nanos start = meta->I64();
    std::string_view key_bytes = meta->Bytes();
    if (!IsEncodedKey(key_bytes, deps_.key_fields)) return false;
    int64_t next = meta->I64();
    Nanos expiry = meta->I64();
    if (next < 0 || next == INT64_MAX) return false;  // TakeRevision gives it, then its successor
    if (!shard.Owns(key_bytes)) continue;
    // A revision never outlives the panes of its window (they are late no earlier than it),
    // so its key is already held by a restored pane.
    uint32_t key = deps_.keys->Intern(key_bytes);
    if (deps_.keys->refs(key) == 0) return false;
    if (!revisions_.try_emplace(PaneKey{start, key}, Revision{next, expiry}).second) return false;
    timers_.Set(TimeDomain::kEventTime, Timer{expiry, kPlusInfinity, start, key, Timer::kExpire});
  }
  return meta->ok();
}

}  // namespace logtide
