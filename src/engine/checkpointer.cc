#include "engine/checkpointer.h"

#include <fmt/format.h>

#include <chrono>

#include "apply/parallel_apply.h"
#include "engine/output_thread.h"
#include "input/input_set.h"
#include "output/output_set.h"
#include "time/clock.h"
#include "time/timestamp.h"
#include "util/quote.h"
#include "watermark/idleness.h"
#include "watermark/watermark.h"

namespace logtide {

Status Checkpointer::Restore(const Checkpoint& cp) {
  auto another_version = [&](std::string_view what) {
    return Status::Refused(fmt::format(
        "state file {} was written by another version of logtide ({}); it was not changed. "
        "Finish the job with the logtide that wrote it, or start a new --state file",
        store_->path(), what));
  };
  // Every section is checked before any is loaded: a refusal reads no input and says nothing
  // of the saved job.
  for (const Section& s : cp.sections) {
    bool known = false;
    for (const Part& p : components_) known = known || p.format->section() == s.name;
    if (!known) return another_version(fmt::format("it has a {} section", QuoteForMessage(s.name)));
  }
  for (const Part& p : components_) {
    const SectionFormat* c = p.format;
    const Section* s = cp.Find(c->section());
    if (s == nullptr && c->ReadsAbsent()) continue;  // a state from before the section
    if (s == nullptr) {
      return Status::Corruption(
          fmt::format("state file {} has no \"{}\" section: it is damaged; it was not changed",
                      store_->path(), c->section()));
    }
    if (!c->Reads(s->version)) {
      // Only a newer logtide's format is not read (every earlier one since the first release
      // is migrated); an older one is from before that release.
      return another_version(
          fmt::format("{}: its \"{}\" section has format {}; this version reads formats up to {}",
                      s->version > c->version() ? "a newer one" : "one older than the first release",
                      c->section(), s->version, c->version()));
    }
  }
  // The window log's component last: a state that does not fit this run (other outputs, say)
  // is refused before its rows are read, which for a large state is most of the time.
  std::vector<const Part*> order;
  for (const Part& p : components_) {
    if (p.plain != nullptr) order.push_back(&p);
  }
  for (const Part& p : components_) {
    if (p.plain == nullptr) order.push_back(&p);
  }
  for (const Part* part : order) {
    const Part& p = *part;
    const SectionFormat* c = p.format;
    const Section* s = cp.Find(c->section());
    const std::string_view data = s != nullptr ? std::string_view(s->data) : std::string_view();
    const uint32_t version = s != nullptr ? s->version : 0;  // 0: absent (ReadsAbsent)
    Status st;
    if (p.plain != nullptr) {
      st = p.plain->Load(data, version);
    } else {
      // The rows are read as the operator restores them: a damaged or edited log is said as
      // such, before what the operator made of its rows.
      LiveRows* rows = store_->live_rows();
      st = p.windows->Load(data, version, rows);
      // A refusal (the zone's rules moved a window) needs no more of the rows.
      if (st.code() == Status::Code::kRefused) return st;
      rows->Drain();
      if (!rows->status().ok()) return rows->status();
    }
    if (st.code() == Status::Code::kCorruption) {
      return Status::Corruption(
          fmt::format("state file {}: its \"{}\" section is damaged ({}); it was not changed",
                      store_->path(), c->section(), st.message()));
    }
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

Status Checkpointer::Commit(Checkpoint* cp) {
  cp->sections.clear();
  cp->window_ops.clear();
  for (const Part& p : components_) {
    Section s{std::string(p.format->section()), p.format->version(), {}};
    Status st = p.plain != nullptr ? p.plain->Save(&s.data)
                                   : p.windows->Save(&s.data, &cp->window_ops, cp->compact);
    if (!st.ok()) return st;
    cp->sections.push_back(std::move(s));
  }
  return store_->Commit(*cp);
}

// The components were registered in this order: the counters, the inputs, the watermark and
// idleness (which keep their times by the inputs' ids), the window operator (which saves the
// watermark its timers were set at, checked here against the watermark's own), the outputs;
// the window operator is restored last (Restore).
Status Checkpointer::Resume(bool* finished) {
  Checkpoint cp;
  Status s = store_->Load(&cp);
  if (!s.ok()) return s;
  if (!(s = Restore(cp)).ok()) return s;
  if (deps_.windows->watermark() != deps_.tracker->current()) {
    return Status::Corruption(fmt::format(
        "state file {}: its window operator and its watermark disagree on the watermark: it is "
        "damaged; it was not changed",
        store_->path()));
  }
  window_log_rows_ = store_->log_rows();
  checkpoints_ = cp.checkpoints;
  *finished = cp.finished;
  return Status::Ok();
}

Status Checkpointer::Take(bool finished) {
  const auto started = std::chrono::steady_clock::now();
  const uint64_t n = checkpoints_ + 1;
  EngineStats* stats = deps_.stats;
  AtPoint("before-flush", n);
  // Nor a checkpoint past bytes of one (a job's first checkpoint is before any line).
  if (stats->lines > 0) {
    Status v = deps_.inputs->WaitVerified();
    if (!v.ok()) return v;
  }
  if (output_thread_ != nullptr) output_thread_->Drain();
  if (apply_ != nullptr) {
    apply_->Barrier();
    apply_->AddCounts(&stats->windows_emitted, stats->ignored_values.data());
  }
  Status s = deps_.outputs->Sync(config_->durable);
  if (!s.ok()) return s;
  AtPoint("before-commit", n);
  if (deps_.idleness->enabled()) deps_.idleness->Settle(deps_.clock->Now());
  const WindowLogComponent& op = *deps_.windows;
  Checkpoint c;
  // The window log is rewritten whole when this checkpoint's changes would take it past twice
  // the live rows: it then never holds more than that, in one run or over many (a cron job's
  // --hold runs), and a checkpoint still costs what changed, amortized (a compaction writes
  // the live rows once per as many rows appended). A finished job's log ends empty.
  c.compact = finished || window_log_rows_ + op.recorded_changes() >
                              2 * op.open_entries() + config_->faults.compact_slack;
  c.finished = finished;
  c.checkpoints = n;
  const Nanos watermark = op.watermark();
  std::string wm = "null";
  if (watermark != kMinusInfinity && watermark != kPlusInfinity)
    wm = "\"" + FormatRfc3339(watermark) + "\"";
  c.info = {{"watermark", wm},
            {"open_windows", std::to_string(op.open_entries())},
            {"pending_timers", std::to_string(op.pending_timers())},
            {"counters", fmt::format("{{\"lines\":{},\"events\":{},\"bad_lines\":{},\"late_"
                                     "events\":{},\"windows_emitted\":{}}}",
                                     stats->lines, stats->events, stats->bad_lines,
                                     stats->late_events, stats->windows_emitted)}};
  if (!(s = Commit(&c)).ok()) return s;
  window_log_rows_ = (c.compact ? 0 : window_log_rows_) + c.window_ops.size();
  checkpoints_ = n;
  since_ = 0;
  last_ = deps_.clock->Now();
  ++stats->checkpoints;
  stats->checkpoint_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  stats->last_checkpoint_rows = c.window_ops.size();
  AtPoint("after-commit", n);
  return Status::Ok();
}

}  // namespace logtide
