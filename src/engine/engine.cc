#include "engine/engine.h"

#include "agg/accumulators.h"
#include "apply/parallel_apply.h"
#include "engine/checkpointer.h"
#include "engine/correction_stats.h"
#include "engine/counters.h"
#include "engine/event_parser.h"
#include "engine/event_time.h"
#include "engine/idle_inputs.h"
#include "engine/job_open.h"
#include "engine/loop_tick.h"
#include "engine/output_thread.h"
#include "engine/parse_pool.h"
#include "engine/result_sink.h"
#include "engine/run_report.h"
#include "engine/stop_signal.h"
#include "engine/time_bounds.h"
#include "engine/validate_config.h"
#include "input/input_set.h"
#include "input/line_reader.h"
#include "keys/group_load.h"
#include "keys/key_table.h"
#include "output/output_set.h"
#include "output/record_chain.h"
#include "state/state_store.h"
#include "time/timestamp.h"
#include "watermark/idleness.h"
#include "watermark/watermark.h"
#include "window/window_operator.h"

namespace logtide {

struct Engine::Impl {
  Impl(const EngineConfig& c, EngineStats* s)
      : config(c),
        stats(s),
        acc(c.aggs),
        sink(&keys, &acc, &s->windows_emitted),
        outputs(c.output, c.late_output, c.errors_output, !c.state_path.empty()),
        report(c, s, &outputs),
        tracker(0, c.delay),  // sized in Open, by the inputs opened
        clock(c.clock != nullptr ? *c.clock : Clock::System()),
        idleness(0, c.idle_timeout, clock.Now()),
        bounds(c, clock),
        counters(s, &seq, report.reported()) {}

  const EngineConfig& config;
  EngineStats* stats;
  KeyTable keys;
  GroupLoad group_load;  // this run's applied events by key group (RunReport::WarnGroupLoad)
  Accumulators acc;
  ResultSink sink;
  std::unique_ptr<WindowOperator> op;
  // Update mode with --lateness: how much the on-time records were corrected.
  std::unique_ptr<CorrectionStats> corrections;
  // Under parallel apply, each worker's, added to `corrections` when it finishes.
  std::vector<std::unique_ptr<CorrectionStats>> worker_corrections;
  OutputSet outputs;
  RunReport report;  // writes bad lines and late events to `outputs`
  std::unique_ptr<RecordChain> records;  // where records go
  // With worker threads: writes the records through `records` (so declared after it and
  // `outputs`).
  std::unique_ptr<OutputThread> output_thread;
  // --apply-threads N on a batch job: N workers apply the events by key group, and `op` holds no
  // keys (it answers PredictAdd); under --state their operators are the window state
  // (ParallelApply::Windows). Writes through `records`, so declared after it.
  std::unique_ptr<ParallelApply> apply;
  std::unique_ptr<InputSet> inputs;
  std::vector<uint64_t> read_to;    // per input: the end of the last line processed
  std::unique_ptr<ParsePool> pool;  // reads `inputs`, so declared after
  WatermarkTracker tracker;
  std::unique_ptr<EventTime> time;  // moves `tracker` and `op`
  // The loop's processing time: --idle-timeout, flush deadlines, timed checkpoints, progress.
  const Clock& clock;
  Idleness idleness;
  std::unique_ptr<IdleInputs> idle;
  TimeBounds bounds;  // the event times the query takes
  std::unique_ptr<LoopTick> tick;  // made when the loop starts
  const volatile int* const stop = StopSignalFlag();
  std::vector<bool> done;  // per input: read to its end in this run
  bool threads = false;     // lines are parsed on worker threads (ParseOnThreads)
  bool live = false;       // an input may keep coming (ParseOnThreads)
  bool apply_finished = false;  // FinishApply ran
  uint64_t seq = 0;
  ProgressListener* progress = nullptr;
  std::atomic<int64_t> write_budget{-1};  // FaultHooks::fail_writes_after (outputs may
                                          // be written from the output thread)

  // Durable state (--state).
  CountersState counters;
  std::unique_ptr<StateStore> store;
  std::unique_ptr<Checkpointer> checkpointer;  // with --state
  bool nothing_to_do = false;
  int stopped_by = 0;

  Status Open();
  Status OpenState(bool* resumed);
  Status ProcessLine(int input, const Line& line, const Event& event);
  Status BadLine(int input, const Line& line, BadKind kind, std::string_view reason) {
    return report.BadLine(inputs->reader(input).name(), line, kind, reason);
  }
  Status ReadAll();
  // Starts parallel apply when the run is one it serves (see ParallelApplies), before the
  // state is opened: its workers' operators are then the window state.
  void StartApply();
  // At the end of the input, or a stop: has every event applied and every record written,
  // and adds the workers' counts to the run's (once). The workers keep their state for the
  // last checkpoint, and their threads stay, idle, until the engine goes.
  void FinishApply();
  // A stop signal came: stops at this line boundary, with a final checkpoint under --state.
  // The open windows are written as provisional records first when records have revisions
  // (WindowOperator::EmitOpen), so the checkpoint holds them; otherwise they stay unwritten.
  Status Stop();
  void ReportProgress(bool done);
  void Warn(const std::string& message) { report.Warn(message); }
  Status Finish();
};

Engine::Engine(const EngineConfig& config) : config_(config) {}
Engine::~Engine() = default;

Status Engine::Create(const EngineConfig& config, std::unique_ptr<Engine>* out) {
  std::unique_ptr<Engine> e(new Engine(config));
  EngineConfig& c = e->config_;
  if (Status s = ValidateConfig(&c); !s.ok()) return s;
  e->stats_.ignored_values.assign(c.aggs.size(), 0);
  e->impl_ = std::make_unique<Impl>(e->config_, &e->stats_);
  Impl& m = *e->impl_;
  m.op = WindowOperator::Create(
      c.window, c.lateness, c.emit, c.early,
      WindowOperator::Deps{&m.keys, &m.acc, &m.sink, e->stats_.ignored_values.data(), c.by.size()},
      c.early_every);
  m.op->set_track_changes(!c.state_path.empty());
  // Only there can a pair change after its on-time record (otherwise that one is final).
  if (c.emit == EmitMode::kUpdate && c.lateness > 0) {
    m.corrections = std::make_unique<CorrectionStats>(&m.acc);
    m.sink.set_corrections(m.corrections.get());
  }
  m.records = std::make_unique<RecordChain>(c);
  m.time = std::make_unique<EventTime>(&m.tracker, m.op.get());
  m.idle = std::make_unique<IdleInputs>(&m.idleness, m.time.get());
  *out = std::move(e);
  return Status::Ok();
}

Status Engine::Impl::Open() {
  InputSet::Options opts = InputOptions(config, [this](const std::string& m) { Warn(m); });
  Status s = InputSet::Open(config.inputs, std::move(opts), &inputs);
  if (!s.ok()) return s;
  // Before the state is opened: a refused run makes no state file.
  if (!(s = CheckLiveInput(config, inputs.get())).ok()) return s;
  // A log's family is listed as its folder holds it now: as many inputs as that gives.
  const int n = static_cast<int>(inputs->size());
  tracker = WatermarkTracker(n, config.delay);
  tracker.set_hold(config.hold);
  idleness = Idleness(n, config.idle_timeout, clock.Now());
  for (size_t i = 0; i < inputs->size(); ++i) inputs->reader(i).set_stop_flag(stop);
  // Parallel apply is decided by the inputs as they open (ReadAll decides again, as the
  // followed inputs are known then: they take no worker threads).
  threads = ParseOnThreads(config, inputs.get(), idle->enabled(), &live);
  // The state file is opened and its query checked before any apply thread starts: a state
  // refused costs no threads.
  if (!config.state_path.empty()) {
    if (!(s = StateStore::Open(config.state_path, config.durable, &store)).ok()) return s;
    if (!(s = store->CheckQuery(QueryText(config))).ok()) return s;
  }
  StartApply();
  if (config.change_outputs)
    outputs.set_change_outputs(config.overwrite, [this](const std::string& m) { Warn(m); });
  if (!config.state_path.empty()) {
    bool resumed = false;
    if (!(s = OpenState(&resumed)).ok()) return s;
    if (!(s = inputs->VanishedError()).ok() || nothing_to_do) return s;
    if (!resumed && !config.overwrite && !(s = RefuseUsedOutputs(config)).ok()) return s;
  }
  if (config.follow) FollowInputs(inputs.get(), [this](const std::string& m) { Warn(m); });
  // What is made of a compressed input reaches no output before the file was checked whole.
  outputs.set_gate([this] { return inputs->WaitVerified(); });
  if (!(s = outputs.Open()).ok()) return s;
  if (config.faults.fail_writes_after >= 0) {
    write_budget = config.faults.fail_writes_after;
    outputs.set_write_budget(&write_budget);
  }
  // A job that checkpoints or never ends writes a table per firing, so that a checkpoint
  // never falls inside one; a run that ends writes one table, at its end.
  if (!(s = records->Open(config.follow || !config.state_path.empty(), &outputs.results())).ok())
    return s;
  sink.set_writer(records->front());
  if (apply != nullptr) apply->set_sink(records->front());
  // A new job commits a first checkpoint before it writes any record: a run killed from here
  // on resumes from it, with each output cut back to the length it had (what '>>' appended
  // to, say), instead of starting a new job after output it already wrote.
  if (store != nullptr && store->is_new()) return checkpointer->Take(false);
  return Status::Ok();
}

// The job's checkpoint components, restored in this order (Checkpointer::Resume).
// REQUIRES: the store is open and its query checked (Open).
Status Engine::Impl::OpenState(bool* resumed) {
  Status s;
  inputs->TrackForCheckpoints();
  WindowLogComponent* windows = apply != nullptr ? apply->windows(op.get()) : op.get();
  checkpointer = std::make_unique<Checkpointer>(
      store.get(), &config,
      CheckpointDeps{inputs.get(), &outputs, windows, &tracker, &idleness, &clock, stats});
  checkpointer->set_parallel_apply(apply.get());
  tracker.set_input_ids(inputs.get());
  idleness.set_input_ids(inputs.get());
  checkpointer->Add(&counters);
  checkpointer->Add(inputs.get());
  checkpointer->Add(&tracker);
  checkpointer->Add(&idleness);
  checkpointer->Add(windows);
  checkpointer->Add(&outputs);
  if (records->changes() != nullptr) checkpointer->Add(records->changes());
  if (store->is_new()) return Status::Ok();
  bool finished = false;
  if (!(s = checkpointer->Resume(&finished)).ok()) return s;
  if (!op->zone_database_note().empty()) Warn(op->zone_database_note());
  time->Restored();
  *resumed = true;
  if (!finished) return Status::Ok();
  // The stream ended in an earlier run: with no new input there is nothing to do.
  if (!(s = CheckEndedStream(config, inputs.get())).ok()) return s;
  nothing_to_do = true;
  return Status::Ok();
}

Status Engine::Impl::ProcessLine(int input, const Line& line, const Event& ev) {
  ++stats->lines;
  if (ev.kind == Event::Kind::kBlank) return Status::Ok();
  if (ev.kind == Event::Kind::kBad) return BadLine(input, line, ev.bad_kind, ev.reason);
  report.NoteSample(line);
  const Nanos t = ev.time;
  if (ev.kind == Event::Kind::kFiltered) {
    ++stats->filtered;
    // Progress is a property of the input, not of the query: a line --where rejects moves the
    // watermark as the event it would have been, when its time is one an event could have (it
    // is never a bad line).
    if (bounds.Takes(t, time->watermark())) time->Observe(input, t);
    return Status::Ok();
  }
  if (!bounds.Takes(t, time->watermark())) [[unlikely]] {
    std::string reason;
    const BadKind kind = bounds.Why(t, time->watermark(), &reason);
    return BadLine(input, line, kind, reason);
  }
  ++seq;
  AddResult added;
  if (apply != nullptr) {
    const ParallelApply::Event e{ev.key, ev.key_hash, ev.key_token, ev.key_slot, t, ev.aggs, seq};
    // A late event changes nothing: it is not handed over.
    if (!op->PredictAdd(t, &added)) {
      added = apply->AddAndWait(e);
    } else if (added.accepted()) {
      apply->Add(e);
    }
  } else {
    uint32_t key = keys.Intern(ev.key, ev.key_hash, ev.key_token, ev.key_slot);
    added = op->Add(KeyedEvent{key, t, ev.aggs, seq});
    if (added.accepted()) group_load.Add(keys, key, seq);
    keys.ReleaseIfUnused(key);
  }
  if (!added.accepted()) {
    bool bad = false;
    Status s = report.LateEvent(inputs->reader(input).name(), config.FormatOf(input), line, t,
                                time->watermark(), added.windows, &bad);
    if (!s.ok() || bad) return s;  // a bad line moves no watermark
  } else {
    ++stats->events;
    if (added.missed > 0) [[unlikely]] {
      report.PartlyLateEvent(inputs->reader(input).name(), config.FormatOf(input), line, t,
                             time->watermark(), added.windows, added.missed);
    }
  }
  time->Observe(input, t);
  return Status::Ok();
}

void Engine::Impl::ReportProgress(bool done) {
  Progress p = InputProgress(*inputs, read_to);
  p.events = stats->events;
  p.watermark = time->watermark();
  p.open_windows = apply != nullptr ? apply->open_entries() : op->open_entries();
  p.done = done;
  progress->OnProgress(p);
}

Status Engine::Impl::Stop() {
  stopped_by = *stop;
  op->EmitOpen();
  if (apply != nullptr) {
    apply->EmitOpen();
    FinishApply();
  }
  stats->bytes_read += inputs->BytesRead(&read_to);  // workers may have read further
  return checkpointer != nullptr ? checkpointer->Take(false) : Status::Ok();
}

Status Engine::Impl::ReadAll() {
  report.BeginRun();
  const size_t n = inputs->size();
  read_to.assign(n, 0);
  for (size_t i = 0; i < n; ++i) read_to[i] = inputs->start_offset(i);
  if (*stop != 0) return Stop();  // a signal before the first line
  threads = ParseOnThreads(config, inputs.get(), idle->enabled(), &live);
  if (Status s = StartParsing(config, inputs.get(), threads ? config.threads - 1 : 0, stop, &pool);
      !s.ok())
    return s;
  group_load.set_first_seq(seq);
  if (apply != nullptr) apply->set_first_seq(seq);  // before any batch is handed over
  if (threads && apply == nullptr) {
    // Sorting, formatting and writing the records of a firing moves off the applying thread
    // too: with many keys (--by user) it is a quarter of that thread's work.
    output_thread = std::make_unique<OutputThread>(records->front(), acc.num_aggs(),
                                                   [this] { (void)outputs.results().Flush(); });
    sink.set_output_thread(output_thread.get());
    if (checkpointer != nullptr) checkpointer->set_output_thread(output_thread.get());
  }
  done.assign(n, false);
  tick = std::make_unique<LoopTick>(LoopTick::Deps{
      stats, &outputs, op.get(), idle.get(), checkpointer.get(),
      progress != nullptr ? std::function<void()>([this] { ReportProgress(false); }) : nullptr,
      config.checkpoint_interval, &clock});
  tick->set_output_thread(output_thread.get());
  tick->set_parallel_apply(apply.get());
  tick->Start(clock.Now(), live);
  size_t remaining = n;
  uint32_t until_rejoin = 0, until_tick = 0;
  uint64_t blocks = 0;
  Line line;
  Event event;
  while (remaining > 0) {
    // Idle inputs that have input again rejoin (looked at every 1024 picks).
    if (idle->enabled() && ++until_rejoin == 1024) {
      until_rejoin = 0;
      idle->Rejoin(pool.get(), clock.Now());
    }
    const int k = time->PickInput(done);
    if (k < 0) {
      tick->WaitForAny(pool.get(), done, stop);
      if (!tick->status().ok()) return tick->status();
      if (*stop != 0) return Stop();
      continue;
    }
    const size_t pick = static_cast<size_t>(k);
    // Keep reading the picked input while it stays the lowest (always, with one input).
    while (true) {
      bool have;
      Status s = pool->Next(k, &line, &event, &have);
      if (!s.ok()) return s;
      if (pool->interrupted()) return Stop();  // a signal while waiting for input
      if (!have && pool->pending()) {  // no line yet: the tick, then wait on or turn away
        const bool wait = tick->Tick(true, pool.get(), k, done);
        if (!tick->status().ok()) return tick->status();
        if (wait) continue;
        pool->StopWaiting(k);
        break;  // it went idle, or an idle one has input again
      }
      // Under --hold, a last line without its '\n' may still be being written: leave it for
      // the next run, and keep the input holding the watermark back, unless a rotation renamed
      // it away (nothing more will be written to it: its last line is whole).
      if (!have || (config.hold && !line.terminated && !inputs->rotated(pick))) {
        // A stop signal that came as the input ended (its writer closed it after signalling):
        // the open windows stay unwritten all the same.
        if (*stop != 0) return Stop();
        if (!have) inputs->Ended(pick);
        done[pick] = true;
        --remaining;
        if (!config.hold || inputs->rotated(pick)) time->Finish(k);
        break;
      }
      if (idle->enabled()) idle->LineRead(k);
      const Nanos before = tracker.max_time(k);
      if (!(s = ProcessLine(k, line, event)).ok()) return s;
      read_to[pick] = line.end_offset;
      if (*stop != 0) {
        if (store != nullptr) inputs->Consumed(pick, line);
        return Stop();
      }
      if (store != nullptr) {
        inputs->Consumed(pick, line);
        if (!(s = checkpointer->AfterLine()).ok()) return s;
      }
      // The timers are looked at every 1024 lines, and at each block of live input: the clock
      // stays off the hot path.
      if (++until_tick == 1024 || (live && pool->blocks() != blocks)) {
        until_tick = 0;
        blocks = pool->blocks();
        if (tick->any()) tick->Tick(false, pool.get(), k, done);
        if (!tick->status().ok()) return tick->status();
      }
      if (n > 1 && tracker.max_time(k) != before) break;
    }
  }
  // Under --hold, the inputs at their end that have been quiet for --idle-timeout (in this
  // run and the ones before) hold nothing back; when that is all of them, event time has
  // moved on with the wall clock.
  if (config.hold) idle->AtHoldEnd(clock.Now());
  FinishApply();
  // Workers may still be reading ahead (under --hold, past the line left for the next run):
  // stop them before looking at what the readers consumed.
  pool->Stop();
  report.NoteFields(*pool);
  pool.reset();
  // A damaged compressed input fails the run even when nothing was written from it.
  if (Status v = inputs->WaitVerified(); !v.ok()) return v;
  stats->bytes_read += inputs->BytesRead();
  if (progress != nullptr) ReportProgress(true);
  if (checkpointer != nullptr) return checkpointer->Take(!config.hold);
  return Status::Ok();
}

// Parallel apply serves the runs that read to an end (a batch job, with or without --state):
// a run on live input or with --early-every applies on one thread (its ticks look at one
// operator). Update mode with --lateness counts its corrections per worker, over the keys each
// holds, and adds them up at the end. Session windows apply on one thread: an event that may
// be late for a session waits for its worker's answer (ParallelApply::AddAndWait), a round trip between threads per event,
// which made out-of-order input 12 times slower with 2 threads (500,000 lines with 3 s of
// disorder) and far more with more.
static bool ParallelApplies(const EngineConfig& c, bool threads, bool live) {
  return threads && c.apply_threads >= 2 && !live && c.early_every == 0 &&
         !c.window.is_session();
}

void Engine::Impl::StartApply() {
  if (!ParallelApplies(config, threads, live)) return;
  const EngineConfig& c = config;
  apply = std::make_unique<ParallelApply>(
      static_cast<uint32_t>(c.apply_threads), c.aggs, c.by.size(),
      [&c](WindowOperator::Deps deps) {
        std::unique_ptr<WindowOperator> op =
            WindowOperator::Create(c.window, c.lateness, c.emit, c.early, deps, c.early_every);
        op->set_track_changes(!c.state_path.empty());
        return op;
      });
  if (corrections != nullptr) {
    for (uint32_t w = 0; w < static_cast<uint32_t>(c.apply_threads); ++w) {
      worker_corrections.push_back(std::make_unique<CorrectionStats>(apply->accumulators(w)));
      apply->set_observer(w, worker_corrections.back().get());
    }
  }
  time->set_parallel(apply.get());
}

void Engine::Impl::FinishApply() {
  if (apply == nullptr || apply_finished) return;
  apply_finished = true;
  apply->Barrier();
  for (const auto& wc : worker_corrections) {
    wc->Finish();
    corrections->Absorb(*wc);
  }
  apply->AddCounts(&stats->windows_emitted, stats->ignored_values.data());
  apply->JoinGroupLoads(&group_load);
  time->set_parallel(nullptr);
  if (tick != nullptr) tick->set_parallel_apply(nullptr);
}

Status Engine::Impl::Finish() {
  // (Parallel apply's threads stay, idle, until the engine goes: its workers' operators are
  // the checkpointer's window component.)
  FinishApply();
  if (checkpointer != nullptr) checkpointer->set_output_thread(nullptr);
  output_thread.reset();  // writes what it holds
  records->Finish();
  return outputs.Close();
}

Status Engine::Run(std::FILE* diag, ProgressListener* progress) {
  Impl& m = *impl_;
  m.report.set_diag(diag, progress);
  m.progress = progress;
  Status s = m.Open();
  // A stop signal while an open waited (a FIFO with no writer yet): stopped, not failed.
  if (!s.ok() && *m.stop != 0) {
    m.stopped_by = *m.stop;
    return Status::Ok();
  }
  const bool opened = s.ok();
  if (s.ok() && !m.nothing_to_do) s = m.ReadAll();
  m.pool.reset();  // stops the workers
  if (m.nothing_to_do) return s;
  Status f = m.Finish();
  if (s.ok()) s = f;
  if (m.corrections != nullptr) m.corrections->Finish();
  // The records are all written: what --having's expressions met is known.
  if (m.records->having() != nullptr) m.report.NoteHaving(*m.records->having());
  // A run that had no usable line (the wrong --time, --time-format, not NDJSON) fails, with
  // what most lines said; so does one with more bad lines than --max-bad-ratio allows.
  if (s.ok() && opened && m.stopped_by == 0) s = m.report.Verdict();
  // A run refused at opening (its state, its inputs) read nothing: the restored job's totals
  // are not this run's to report.
  if (!config_.quiet && opened) {
    m.report.WarnAtEnd(m.tracker.top());
    m.report.WarnGroupLoad(m.group_load);
    if (m.corrections != nullptr && m.corrections->corrected() > 0)
      m.report.Warn(m.corrections->Summary(AggNames(config_)));
  }
  return s;
}

bool Engine::nothing_to_do() const { return impl_->nothing_to_do; }

const CorrectionStats* Engine::corrections() const {
  return impl_ != nullptr ? impl_->corrections.get() : nullptr;
}

EngineStats Engine::run_stats() const { return stats_.Since(impl_->report.at_start()); }

void Engine::InstallStopHandlers() { logtide::InstallStopHandlers(); }

int Engine::stopped_by_signal() const { return impl_->stopped_by; }

uint64_t Engine::having_matched() const {
  return impl_ != nullptr && impl_->records->having() != nullptr ? impl_->records->having()->kept()
                                                                 : 0;
}

}  // namespace logtide
