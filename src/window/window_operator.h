// The window operator contract: keyed window state, firing and purging, following Flink's
// WindowOperator. Two implementations: panes for tumbling and sliding windows
// (pane_operator.h), merging sessions for session windows (session_operator.h).
//
// Lifecycle (Arroyo's operator hooks), in call order:
//   Load              once, before anything else, when a run resumes from a checkpoint;
//   Add               an event (late events are refused and change nothing);
//   OnWatermark       event time moved: due timers go off, in timer order;
//   StartProcessingTime  the read loop starts (after Load): --early-every's trigger is set;
//   OnProcessingTime  the wall clock moved: due processing-time timers go off;
//   EmitOpen          a stop signal came (with revisions only): the open windows' changes
//                     are written as provisional records, before the last checkpoint (an
//                     --early-every firing writes the same records);
//   Save              at each checkpoint: the rows that changed (to the window log) and a
//                     small section ("windows").
// Load and Save make the operator the window log's component (state/checkpoint.h).
// The end of the input is OnWatermark(kPlusInfinity): every open window fires and all state
// is dropped, so there is no separate finish hook.
//
// Every firing (but a stop's, EmitOpen) and every drop of state goes through the operator's
// TimerService: an operator sets a timer for each thing that will happen (a window firing, a
// pane or session cleaned up, a revision count forgotten) and acts when it pops. Those are
// event-time timers; the one processing-time timer is --early-every's trigger. When a window
// fires and when it is late are the named predicates below (see man/logtide.1, SEMANTICS):
//  - FireTime(end): final mode, end + lateness; update mode, end (revision 0). In update mode
//    each late event accepted into an already emitted window emits that window's next
//    revision from inside Add().
//  - CleanupTime(end) = end + lateness: the window is late (IsLate) from then on, takes no
//    more events, and its state is dropped.
//  - EarlyTimes (--early D): while a window is open (watermark < end), each time the
//    watermark crosses start + k*D (k >= 1, before the end) the (window, key) pairs changed
//    since their last record get a provisional record (phase early). For a session the grid
//    starts at the session's start as it is then. Records then carry revisions in final mode
//    too, and the on-time record of final mode closes its window.
//  - EmitOpen (a stop): each (window, key) not yet due (FireTime > watermark) whose state
//    changed since its last record gets a record now, phase early, not final, with the next
//    revision, as if an early time had just passed; the pairs it writes count as unchanged
//    from then on (saved so), so a resumed run goes on with the next revision and writes a
//    pair again only when it changes or its window is due.
//  - --early-every D (processing time): at each multiple of D since the epoch on the job's
//    clock that the read loop's tick passes, the records EmitOpen writes (the pairs of the
//    open windows changed since their last record); records then carry revisions in final
//    mode too. Not saved: StartProcessingTime sets the trigger again in a resumed run.
//  - Closing: the last record of a (window, key) says so (final). When it was written before
//    the window was late (update mode with lateness), the window's record is written again
//    at CleanupTime, with the next revision, phase late and final.
//  - An event is late, and changes nothing, when every window it belongs to is late. An event
//    of overlapping (sliding) windows is partly late when some of them are: it is added to
//    the others. Windows of one event are late in end order, so the late ones are its first.
// The emitter writes the windows handed over in one EmitWindows call sorted by (end, start,
// key); operators hand windows over in end order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "agg/accumulators.h"
#include "keys/key_group.h"
#include "keys/key_table.h"
#include "json/value.h"
#include "state/checkpoint.h"
#include "util/bytes.h"
#include "watermark/timer_queue.h"
#include "window/emit_mode.h"
#include "window/window_spec.h"

namespace logtide {

using WindowBounds = WindowSpec::Bounds;

struct WindowResult {
  Nanos start;
  Nanos end;
  uint32_t key;
  uint32_t slot;     // accumulator slot holding the window's state; valid during Emit only
  int64_t revision;  // -1 when records have none (final mode without --early)
  RecordPhase phase = RecordPhase::kOnTime;
  bool final = false;  // the last record of this window and key
};

// Where a firing stands among the firings of one operator call (an Add, an OnWatermark, an
// EmitOpen): an operator's firings of one call come in increasing order, and two operators that
// hold disjoint sets of keys of one stream (parallel apply: apply/README.md) give the firings
// that one operator holding all the keys would have made the same order. The firings of the
// key sets with equal orders in the same call are that one operator's one firing, split.
//   A timer's firing: the timer's (time, end, start, kind) (Timer's order, without the key:
//   firing timers are per window, or their firings are gathered by the time they were due).
//   Every other firing (an Add's, an EmitOpen's, all of a call's at once): all zero.
struct FiringOrder {
  Nanos time = 0, end = 0, start = 0;
  uint8_t kind = 0;
  auto tie() const { return std::tie(time, end, start, kind); }
  bool operator<(const FiringOrder& o) const { return tie() < o.tie(); }
  bool operator==(const FiringOrder& o) const { return tie() == o.tie(); }
};

class ResultEmitter {
 public:
  virtual ~ResultEmitter() = default;
  // The windows fired together, in any order: written sorted by (end, start, key) (see
  // output/result_order.h), as one firing standing at `order`. Their slots and keys are valid
  // during the call only.
  virtual void EmitWindows(const std::vector<WindowResult>& results, const FiringOrder& order) = 0;
};

// Sees the records of every firing as they are emitted (their slots and keys valid during the
// call only): what an emitter hands them to besides writing them (engine/correction_stats.h).
class FiringObserver {
 public:
  virtual ~FiringObserver() = default;
  virtual void Observe(const std::vector<WindowResult>& results) = 0;
};

// One event as the operator sees it: its key's id, its time, and the aggregates' inputs
// (valid during Add only).
struct KeyedEvent {
  uint32_t key;
  Nanos time;
  const ValueRef* inputs;
  uint64_t seq;  // the event's position in the stream, for first()/last()
};

// What Add did with an event: of the `windows` it belongs to (1 for tumbling and session
// windows), the first `missed` in end order were late, and it was added to the others.
struct AddResult {
  uint32_t windows;
  uint32_t missed;
  // Whether it was added to a window: false, and nothing changed, when the event is late.
  bool accepted() const { return missed < windows; }
};

class WindowOperator : public WindowLogComponent {
 public:
  struct Deps {
    KeyTable* keys;
    Accumulators* acc;
    ResultEmitter* emitter;
    uint64_t* wrong_type;  // per aggregate: values of the wrong type (Accumulators::Add)
    size_t key_fields;     // values in every group key (the --by fields): a key restored with
                           // another number is damaged (a record has a column for each)
  };
  // `early`: the --early interval, 0 for none; `early_every`: the --early-every interval, 0
  // for none.
  static std::unique_ptr<WindowOperator> Create(const WindowSpec& spec, Nanos lateness,
                                                EmitMode mode, Nanos early, Deps deps,
                                                Nanos early_every = 0);
  ~WindowOperator() override = default;

  // Section "windows", version 4 (1 was the engine blob's operator part, before the
  // checkpoint components; 2 encoded keys and distinct values in json/value.h's earlier,
  // unordered form; 3 kept what changed since a pair's last record only with --early, not
  // in update mode: its rows read as 4's rows without that field; 3 and 4 had no zone block,
  // and are read as a job that recorded no zone rules):
  //   i64 the operator's watermark
  //   bytes the zone database version the windows' bounds were computed with ("" without
  //         --tz, or when the system does not say it: time/time_zone.h ZoneDatabaseVersion)
  //   u32 n, then n times i64 start, i64 end: with --tz, the bounds of the open windows
  //   the operator's meta (see SnapshotMeta in pane_operator.cc and session_operator.cc);
  // rows in the window log.
  static constexpr uint32_t kVersion = 5;
  // Describes the section's form in kVersion, field by field (util/state_codec.h), for
  // savepoints: the operator's meta is a pane operator's, or a session operator's (none).
  static void DescribeSection(bool session, StateCodec* c);
  std::string_view section() const override { return "windows"; }
  uint32_t version() const override { return kVersion; }
  bool Reads(uint32_t version) const override { return version >= 3 && version <= kVersion; }
  Status Save(std::string* data, std::vector<StateOp>* log, bool all) override {
    return SaveShards({this}, data, log, all);
  }
  // Restores into a new operator and sets the timers its state implies. Errors: Corruption
  // when the bytes are damaged; Refused, naming both zone database versions and a window,
  // when the saved open windows do not have the bounds the zone's rules give them now.
  Status Load(std::string_view data, uint32_t version, RowSource* rows) override {
    return LoadShards({this}, data, version, rows);
  }
  // Parallel apply (apply/parallel_apply.h): `shards` are operators of this job (made by the
  // same Create) that hold disjoint sets of keys, every one at this operator's watermark (this
  // one may be one of them, or hold no keys). SaveShards writes the section and row changes
  // one operator holding all their keys would write: the same section bytes and the same live
  // rows for any number of shards (a pane dropped by several is erased once, before every
  // put). LoadShards restores a section and rows saved by any number of shards into these:
  // every row goes to the shard that owns its key's group (KeyShard of its index among
  // `shards.size()`), and every shard, and this operator, gets the saved watermark. Errors:
  // as Load's.
  Status SaveShards(const std::vector<WindowOperator*>& shards, std::string* data,
                    std::vector<StateOp>* log, bool all);
  Status LoadShards(const std::vector<WindowOperator*>& shards, std::string_view data,
                    uint32_t version, RowSource* rows);
  // The row changes SaveShards(shards) would append now: a pane several shards dropped counts
  // once, so the figure is one operator's for any number of shards.
  static size_t RecordedChangesOf(const std::vector<WindowOperator*>& shards);
  // After a Load under another zone database version than the state's, whose rules gave every
  // open window its saved bounds: a warning that says so (the job goes on, and windows opened
  // from now follow this system's rules). Empty otherwise.
  const std::string& zone_database_note() const { return zone_db_note_; }

  // Adds one event at the current watermark to each of its windows that is not late, and
  // returns how many windows it has and how many of them were late. When all were, the event
  // is late and nothing changed.
  virtual AddResult Add(const KeyedEvent& e) = 0;
  // Whether what Add returns for an event at time t, at the current watermark, follows from t
  // and the watermark alone (not from any key's state); then *out is set to it. Panes: always.
  // Sessions: when the event's own session [t, t + gap) is not late (the sessions it may merge
  // with end no earlier); otherwise it depends on the key's sessions. May change caches, never
  // the state.
  virtual bool PredictAdd(Nanos t, AddResult* out) = 0;

  // Fires every event-time timer due at w, in timer order.
  // REQUIRES: w is not smaller than any watermark passed before.
  void OnWatermark(Nanos w) {
    watermark_ = w;
    Timer t;
    if (!timers_.PopDue(TimeDomain::kEventTime, w, &t)) return;
    do {
      OnTimer(TimeDomain::kEventTime, t);
    } while (timers_.PopDue(TimeDomain::kEventTime, w, &t));
    AfterTimers();
  }
  // A stop signal came: with revisions (update mode or --early), writes a provisional record
  // (phase early, not final, the next revision) for each (window, key) not yet due whose state
  // changed since its last record, and counts them as unchanged from now on. Without
  // revisions, writes nothing (the open windows are incomplete, and a record without a
  // revision could not be taken back).
  virtual void EmitOpen() = 0;

  // The read loop starts at `now` (wall-clock nanoseconds since the epoch, on the job's
  // clock): with --early-every D, sets its trigger at the first multiple of D after `now`.
  // Processing-time timers are not saved by Save: a resumed run calls this again after Load.
  void StartProcessingTime(Nanos now);
  // Fires every processing-time timer due at `now`. The read loop calls it at each tick while
  // processing_timers() is not 0 (engine/loop_timers.h). The one such timer is --early-every's
  // trigger: when it is due, the open windows' changed pairs are written (EmitOpen), once
  // however many multiples of D passed since, and the trigger is set at the next multiple
  // after `now`. A clock set back by more than D does not hold it back: it is then due.
  // Returns whether it fired.
  bool OnProcessingTime(Nanos now);

  // Whether row changes are recorded for Save (only with a state store: without one
  // nothing would ever take them, and the record would grow with the input).
  // REQUIRES: set before the first Add.
  void set_track_changes(bool on) { track_changes_ = on; }
  // Number of row changes recorded for the next Save (0 when not tracking).
  size_t recorded_changes() const override = 0;

  // Number of open (window or pane, key) states.
  size_t open_entries() const override = 0;
  // Number of timers still to go off, both domains.
  size_t pending_timers() const final {
    return timers_.size(TimeDomain::kEventTime) + timers_.size(TimeDomain::kProcessingTime);
  }
  // Number of processing-time timers still to go off.
  size_t processing_timers() const { return timers_.size(TimeDomain::kProcessingTime); }
  // The event-time timers of a window rather than of a key (a pane operator's firing, early,
  // closing and cleanup timers: every operator holding keys of the window sets its own)
  // appended to *window; returns the number of the others (both domains).
  size_t WindowTimers(std::vector<Timer>* window) const;
  // The timers of several operators that hold disjoint keys (parallel apply's workers), as one
  // operator holding all the keys would count them: a window's timer once.
  static size_t PendingTimersOf(const std::vector<WindowOperator*>& shards);
  Nanos watermark() const final { return watermark_; }

 protected:
  WindowOperator(Nanos lateness, EmitMode mode, Nanos early, Deps deps, Nanos timer_bucket)
      : lateness_(lateness), mode_(mode), early_(early), deps_(deps), timers_(timer_bucket) {}

  // The state is a set of rows (open panes or sessions with their keys and accumulators) plus
  // a small `meta` blob. Appends to `ops` the row changes since the last call (with `all`, a
  // put for every row instead).
  virtual void SnapshotRows(std::vector<StateOp>* ops, bool all) = 0;
  // Writes the meta blob of `shards` (see SaveShards; this one among them).
  virtual void SnapshotMeta(const std::vector<WindowOperator*>& shards, ByteWriter* meta) const = 0;
  // Sets *key to the key bytes of the row with key `row_key`; false when it has none.
  virtual bool RowKeyOf(std::string_view row_key, std::string_view* key) const = 0;
  // Restores one row into a new operator at watermark_, and sets the timers it implies.
  // Returns false when its bytes are damaged.
  virtual bool RestoreRow(std::string_view row_key, std::string_view value) = 0;
  // After every row: restores what the meta blob says of the keys `shard` owns (every entry is
  // read, and checked as far as it can be without its key's rows). Returns false when the
  // bytes are damaged.
  virtual bool RestoreMeta(ByteReader* meta, const KeyShard& shard) = 0;
  // Appends the starts of the panes dropped since the last Save that had rows (each is one
  // erasure of recorded_changes()).
  virtual void AppendDroppedPanes(std::vector<Nanos>*) const {}
  // Appends the bounds of the open windows, each once, by start. Called with --tz only.
  virtual void OpenWindows(std::vector<WindowBounds>*) const {}
  // Returns the bounds the window starting at `start` has by the zone's rules now.
  virtual WindowBounds BoundsNow(Nanos start) const { return {start, start}; }

  // Acts on one timer that went off.
  virtual void OnTimer(TimeDomain domain, const Timer& t) = 0;
  // Called after the timers that went off at one OnWatermark / OnProcessingTime, if any.
  virtual void AfterTimers() {}
  // Whether `t` is a window's timer rather than a key's (WindowTimers).
  virtual bool IsWindowTimer(const Timer&) const { return false; }

  // Emits `results` (when there are any) as one firing standing at `order`, and clears the
  // vector.
  void Emit(std::vector<WindowResult>* results, const FiringOrder& order) {
    if (!results->empty()) deps_.emitter->EmitWindows(*results, order);
    results->clear();
  }
  // The order of a timer's firing.
  static FiringOrder TimerOrder(const Timer& t) { return FiringOrder{t.time, t.end, t.start, t.kind}; }

  // The watermark at which a window ending at `end` is emitted for the first time.
  Nanos FireTime(Nanos end) const {
    return mode_ == EmitMode::kFinal ? SatAdd(end, lateness_) : end;
  }
  // The watermark from which a window ending at `end` is late and its state dropped.
  Nanos CleanupTime(Nanos end) const { return SatAdd(end, lateness_); }
  // Whether a window ending at `end` is late at the current watermark.
  bool IsLate(Nanos end) const { return IsWindowLate(end, lateness_, watermark_); }
  // Whether records carry revisions (update mode, --early or --early-every).
  bool revised() const { return mode_ == EmitMode::kUpdate || early_ > 0 || early_every_ > 0; }
  // Whether a window's record written when it fires (FireTime) is its last: in final mode,
  // and in update mode without lateness (it is late at once).
  bool FireIsFinal() const { return mode_ == EmitMode::kFinal || lateness_ == 0; }
  // The first early time of a window (or session) starting at `start` that the watermark has
  // not reached: start + k*early_, k >= 1, > watermark_.
  // REQUIRES: early_ > 0.
  Nanos NextEarly(Nanos start) const {
    if (watermark_ < start) return SatAdd(start, early_);
    const Nanos k = SatSub(watermark_, start) / early_ + 1;
    return SatAdd(start, k > INT64_MAX / early_ ? kPlusInfinity : k * early_);
  }

  Nanos lateness_;
  EmitMode mode_;
  Nanos early_;  // 0: no early records
  Nanos early_every_ = 0;  // 0: no early records by processing time
  Nanos every_at_ = kPlusInfinity;  // when --early-every's trigger is set for
  Deps deps_;
  TimerService timers_;
  Nanos watermark_ = kMinusInfinity;
  bool track_changes_ = false;
  // --tz: the zone's name and the zone database version of this run (Create).
  bool has_zone_ = false;
  std::string zone_name_, zone_db_;
  std::string zone_db_note_;  // zone_database_note()
};

// What a job's window log rows hold, for savepoints (state/savepoint.h): its window kind, whether
// its records have revisions (query/query.h Revised), and its aggregates' state.
struct WindowRowForm {
  bool session = false;
  bool revised = false;
  const Accumulators* acc = nullptr;
  const std::vector<AggSpec>* aggs = nullptr;  // those `acc` was made from
};
// Describe a row's key and its value, field by field (util/state_codec.h), as SnapshotRows
// writes them (pane_operator.cc, session_operator.cc).
void DescribeWindowRowKey(const WindowRowForm& form, StateCodec* c);
void DescribeWindowRowValue(const WindowRowForm& form, StateCodec* c);

// The zone block of a saved "windows" section, for `logtide inspect`.
struct SavedZoneRules {
  bool recorded = false;  // version 4: the section says which zone database it used
  std::string zone_db;    // "" when the job had no --tz or the system did not say
  std::vector<WindowBounds> windows;
};
// Decodes the zone block of a "windows" section saved in `version`. Returns false when its
// bytes are damaged or the version is not one WindowOperator reads.
bool DecodeSavedZoneRules(std::string_view data, uint32_t version, SavedZoneRules* out);

}  // namespace logtide
