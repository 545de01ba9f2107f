#include "window/pane_operator.h"

#include <algorithm>
#include <functional>

#include "util/radix_sort.h"

namespace logtide {

PaneOperator::PaneOperator(const WindowSpec& spec, Nanos lateness, EmitMode mode, Deps deps)
    : WindowOperator(lateness, mode, deps), spec_(spec), pane_(spec.pane()) {}

PaneOperator::~PaneOperator() = default;

bool PaneOperator::Add(uint32_t key, Nanos t, const ValueRef* inputs, uint64_t seq, Nanos watermark,
                       uint64_t* wrong_type) {
  // Every time in one pane has the same last window (the pane divides the slide): consecutive
  // events in one pane skip the divisions.
  if (!(t >= recent_pane_ && t < recent_pane_end_)) {
    recent_pane_ = FloorTo(t, pane_);
    recent_pane_end_ = SatAdd(recent_pane_, pane_);
    recent_last_end_ = spec_.LastWindowEnd(t);
    recent_ = nullptr;
  }
  if (IsWindowLate(recent_last_end_, lateness_, watermark)) return false;
  const Nanos p = recent_pane_;
  if (recent_ == nullptr) {
    auto [pit, new_pane] = panes_.try_emplace(p);
    if (new_pane) {
      pit->second = std::make_unique<Pane>();
      // Sized like the last pane that filled: panes of a stream hold similar numbers of keys.
      pit->second->entries.reserve(last_pane_keys_);
      quiet_until_ = kMinusInfinity;  // it may be the first pane: Purge's time moves
    }
    recent_ = pit->second.get();
  }
  uint32_t slot = FindSlot(*recent_, key);
  if (slot == KeyTable::kNoSlot) {
    slot = deps_.acc->Allocate();
    AddEntry(recent_, key, slot);
    last_pane_keys_ = std::max(last_pane_keys_, recent_->entries.size());
  }
  deps_.acc->Add(slot, inputs, t, seq, wrong_type);
  MarkDirty(p, key, slot);

  // update mode: windows of t already emitted (end <= watermark) and not yet late get their
  // next revision now, in window order.
  if (mode_ == EmitMode::kUpdate && spec_.NextEndAfter(t) <= watermark) {
    for (Nanos s = SatSub(spec_.NextEndAfter(t), spec_.size); s <= spec_.LastWindowStart(t);
         s = SatAdd(s, spec_.slide)) {
      Nanos e = SatAdd(s, spec_.size);
      if (e > watermark || IsWindowLate(e, lateness_, watermark)) continue;
      uint32_t slot = MergedSlot(key, s, e);
      results_.push_back(WindowResult{s, e, key, slot, TakeRevision(s, e, key)});
    }
    EmitAndRelease();
  }
  return true;
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

int64_t PaneOperator::TakeRevision(Nanos start, Nanos end, uint32_t key) {
  if (mode_ == EmitMode::kFinal) return -1;
  if (lateness_ == 0) return 0;  // late at once: no later revision can exist
  auto [it, inserted] = revisions_.try_emplace(PaneKey{start, key}, 0);
  if (inserted) {
    revision_expiry_.emplace_back(SatAdd(end, lateness_), start, key);
    quiet_until_ = kMinusInfinity;
    std::push_heap(revision_expiry_.begin(), revision_expiry_.end(), std::greater<>());
  }
  return it->second++;
}

void PaneOperator::CollectWindow(Nanos start, Nanos end) {
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
    uint32_t slot = scratch_[i].slot;
    if (j - i > 1) {
      slot = deps_.acc->Allocate();
      temp_slots_.push_back(slot);
      for (size_t k = i; k < j; ++k) deps_.acc->Merge(slot, scratch_[k].slot);
    }
    results_.push_back(
        WindowResult{start, end, scratch_[i].key, slot, TakeRevision(start, end, scratch_[i].key)});
    i = j;
  }
}

void PaneOperator::EmitAndRelease() {
  Emit(&results_);
  for (uint32_t s : temp_slots_) deps_.acc->Free(s);
  temp_slots_.clear();
}

void PaneOperator::AdvanceWatermark(Nanos w) {
  if (w < quiet_until_) return;
  AdvanceWatermarkNow(w);
  // Below the next window end (+ lateness in final mode) after fired_end_, nothing fires and
  // fired_end_ stays (every window end that could fire is at or after it); below the times at
  // which the first pane and the oldest revision expire, nothing is purged. Until then, an
  // advance is a no-op, unless a new pane or revision comes (both reset quiet_until_).
  quiet_until_ = kMinusInfinity;
  if (!fired_any_) return;
  Nanos q = FireTime(SatAdd(fired_end_, spec_.slide));
  if (!panes_.empty())
    q = std::min(q, SatAdd(spec_.LastWindowEnd(panes_.begin()->first), lateness_));
  if (!revision_expiry_.empty()) q = std::min(q, std::get<0>(revision_expiry_.front()));
  quiet_until_ = q;
}

void PaneOperator::AdvanceWatermarkNow(Nanos w) {
  while (!panes_.empty()) {
    // The next window end, after the last one considered, whose window holds a pane with data.
    Nanos e;
    if (!fired_any_) {
      e = spec_.NextEndAfter(panes_.begin()->first);
    } else {
      auto it = panes_.lower_bound(SatSub(SatAdd(fired_end_, spec_.slide), spec_.size));
      if (it == panes_.end()) break;
      e = std::max(spec_.NextEndAfter(it->first), SatAdd(fired_end_, spec_.slide));
    }
    if (FireTime(e) > w || (fired_any_ && e <= fired_end_)) break;
    CollectWindow(SatSub(e, spec_.size), e);
    // Window by window, in end order, which is the order of the records: a watermark that
    // passes many windows at once (the end of the input) holds one window's results, not all.
    EmitAndRelease();
    fired_any_ = true;
    fired_end_ = e;
  }
  // Every window due at w has now been considered, including those that were empty: data that
  // reaches one of their panes later must not fire them again.
  Nanos due_until = mode_ == EmitMode::kFinal ? SatSub(w, lateness_) : w;
  if (due_until != kMinusInfinity && due_until != kPlusInfinity) {
    Nanos last_due_end = SatAdd(FloorTo(SatSub(due_until, spec_.size), spec_.slide), spec_.size);
    if (!fired_any_ || last_due_end > fired_end_) {
      fired_any_ = true;
      fired_end_ = last_due_end;
    }
  }
  Purge(w);
}

void PaneOperator::Purge(Nanos w) {
  while (!panes_.empty()) {
    auto it = panes_.begin();
    if (!IsWindowLate(spec_.LastWindowEnd(it->first), lateness_, w)) break;
    const std::vector<Entry>& entries = it->second->entries;
    if (track_changes_ && !entries.empty()) purged_.push_back(it->first);
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
  while (!revision_expiry_.empty() && std::get<0>(revision_expiry_.front()) <= w) {
    std::pop_heap(revision_expiry_.begin(), revision_expiry_.end(), std::greater<>());
    auto [expiry, start, key] = revision_expiry_.back();
    revisions_.erase(PaneKey{start, key});
    revision_expiry_.pop_back();
  }
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

// Rows: PaneRowKey(pane start, key) -> accumulators. Meta: u8 fired_any, i64 fired_end,
// u32 revisions, per revision (sorted): i64 window start, bytes key, i64 next revision,
// i64 expiry.
void PaneOperator::SnapshotChanges(std::vector<StateOp>* ops, ByteWriter* meta, bool all) {
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
    ops->push_back(std::move(op));
  }
  dirty_list_.clear();

  meta->U8(fired_any_);
  meta->I64(fired_end_);
  std::vector<std::tuple<Nanos, std::string_view, Nanos, int64_t>>
      revs;  // (start, key, expiry, next)
  for (const auto& [expiry, start, key] : revision_expiry_) {
    revs.emplace_back(start, deps_.keys->encoded(key), expiry, revisions_.at(PaneKey{start, key}));
  }
  std::sort(revs.begin(), revs.end());
  meta->U32(static_cast<uint32_t>(revs.size()));
  for (const auto& [start, key, expiry, next] : revs) {
    meta->I64(start);
    meta->Bytes(key);
    meta->I64(next);
    meta->I64(expiry);
  }
}

bool PaneOperator::Restore(const std::vector<std::pair<std::string, std::string>>& rows,
                           ByteReader* meta, Nanos) {
  for (const auto& [k, v] : rows) {
    if (k.size() < 8) return false;
    Nanos start = PaneRowStart(k);
    uint32_t key = deps_.keys->Intern(std::string_view(k).substr(8));
    uint32_t slot = deps_.acc->Allocate();
    ByteReader r(v);
    deps_.acc->Restore(slot, &r);
    if (!r.ok() || !r.at_end()) return false;
    std::unique_ptr<Pane>& pane = panes_[start];
    if (pane == nullptr) pane = std::make_unique<Pane>();
    if (FindSlot(*pane, key) != KeyTable::kNoSlot) return false;  // a row twice
    AddEntry(pane.get(), key, slot);
    quiet_until_ = kMinusInfinity;
  }
  fired_any_ = meta->U8() != 0;
  fired_end_ = meta->I64();
  uint32_t revs = meta->U32();
  for (uint32_t i = 0; i < revs && meta->ok(); ++i) {
    Nanos start = meta->I64();
    std::string_view key_bytes = meta->Bytes();
    int64_t next = meta->I64();
    Nanos expiry = meta->I64();
    // A revision never outlives the panes of its window (they are late no earlier than it),
    // so its key is already held by a restored pane.
    uint32_t key = deps_.keys->Intern(key_bytes);
    if (deps_.keys->refs(key) == 0) return false;
    revisions_[PaneKey{start, key}] = next;
    revision_expiry_.emplace_back(expiry, start, key);
    std::push_heap(revision_expiry_.begin(), revision_expiry_.end(), std::greater<>());
  }
  return meta->ok();
}

}  // namespace logtide
