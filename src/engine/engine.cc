#include "engine/engine.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <chrono>
#include <csignal>
#include <thread>

#include "agg/accumulators.h"
#include "engine/checkpointer.h"
#include "engine/counters.h"
#include "engine/event_parser.h"
#include "engine/output_thread.h"
#include "engine/parse_pool.h"
#include "engine/result_sink.h"
#include "engine/run_report.h"
#include "engine/validate_config.h"
#include "input/input_set.h"
#include "input/line_reader.h"
#include "json/extractor.h"
#include "keys/key_table.h"
#include "output/output_set.h"
#include "output/record_writer.h"
#include "state/state_store.h"
#include "time/duration.h"
#include "time/timestamp.h"
#include "watermark/idleness.h"
#include "watermark/watermark.h"
#include "window/window_operator.h"

namespace logtide {

namespace {

volatile int g_stop_signal = 0;  // sig_atomic_t is int here; LineReader takes an int flag
static_assert(sizeof(std::sig_atomic_t) == sizeof(int));
// The first signal asks for a clean stop; a second one (Ctrl-C again, or timeout(1)'s kill
// after its grace) ends the process at once, with the signal's own action.
extern "C" void OnStopSignal(int sig) {
  if (g_stop_signal != 0) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_stop_signal = sig;
}

}  // namespace

struct Engine::Impl {
  Impl(const EngineConfig& c, EngineStats* s)
      : config(c),
        stats(s),
        acc(c.aggs),
        sink(&keys, &acc, &s->windows_emitted),
        outputs(c.output, c.late_output, c.errors_output, !c.state_path.empty()),
        report(c, s, &outputs),
        tracker(static_cast<int>(c.inputs.size()), c.delay),
        clock(c.clock != nullptr ? *c.clock : Clock::System()),
        idleness(static_cast<int>(c.inputs.size()), c.idle_timeout, clock.Now()),
        counters(s, &seq, report.reported()) {
    tracker.set_hold(c.hold);
    c.window.WindowableRange(c.delay, c.lateness, &min_time, &max_time);
  }

  const EngineConfig& config;
  EngineStats* stats;
  JsonChecker json_checker;  // late lines, before they are counted
  KeyTable keys;
  Accumulators acc;
  ResultSink sink;
  std::unique_ptr<WindowOperator> op;
  OutputSet outputs;
  RunReport report;  // writes bad lines and late events to `outputs`
  std::unique_ptr<RecordWriter> writer;
  // With worker threads: writes the records through `writer` (so declared after it and
  // `outputs`).
  std::unique_ptr<OutputThread> output_thread;
  std::unique_ptr<InputSet> inputs;
  std::vector<uint64_t> read_to;    // per input: the end of the last line processed
  std::unique_ptr<ParsePool> pool;  // reads `inputs`, so declared after
  WatermarkTracker tracker;
  // --idle-timeout: which inputs are idle, on this clock.
  const Clock& clock;
  Idleness idleness;
  int waiting_on = -1;  // the input Next waits on, -1 while waiting for any (WaitForAny)
  std::vector<bool> done;  // per input: read to its end in this run
  Nanos last_rejoin_check = 0;
  // The input waited on has been quiet for --idle-timeout: it stops holding the watermark back.
  void SetIdle(int input);
  // An idle input with input ready again holds the watermark back again; its events behind the
  // watermark are late. Returns whether one did.
  bool Rejoin();
  bool AnyIdleReady();
  // While every unfinished input is idle: event time moves at wall-clock speed.
  void WallClockProgress(Nanos now);
  // Every unfinished input is idle: waits until one has input or a stop signal came.
  void WaitForAny();
  Nanos watermark = kMinusInfinity;
  uint64_t seq = 0;
  Nanos min_time = kMinusInfinity, max_time = kPlusInfinity;  // WindowSpec::WindowableRange
  ProgressListener* progress = nullptr;
  std::chrono::steady_clock::time_point last_progress;
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
  Status CheckFinished();
  Status CheckFreshOutputs();
  Status ProcessLine(int input, const Line& line, const Event& event);
  // --max-future: what an event time may be ahead of, the watermark; before there is one
  // (the first events), the wall clock stands in for it.
  Nanos FutureReference() const { return watermark != kMinusInfinity ? watermark : clock.Now(); }
  bool TooFarAhead(Nanos t) const {
    return config.max_future > 0 && t > SatAdd(FutureReference(), config.max_future);
  }
  Status BadLine(int input, const Line& line, BadKind kind, std::string_view reason) {
    return report.BadLine(inputs->reader(input).name(), line, kind, reason);
  }
  void Advance(Nanos w) {
    if (w > watermark) {
      watermark = w;
      op->OnWatermark(w);
    }
  }
  Status ReadAll();
  // A stop signal came: stops at this line boundary, open windows unwritten, with a final
  // checkpoint under --state.
  Status Stop();
  void ReportProgress(bool done);
  // The loop's periodic work while input is awaited (the pool returned with no line yet,
  // ParsePool::set_return_while_waiting): idle inputs are seen to, what was decided goes out
  // now, and checkpoints and progress keep their wall-clock pace. Errors wait in wait_status.
  // Returns false to stop waiting on the input: it went idle and another may be read, or an
  // idle one has input again.
  bool Tick();
  uint64_t flushed_records = 0;  // records, late events and bad lines when outputs were flushed
  // Live input that keeps coming (never quiet for the pool's first 10 ms): at a block of input, what
  // was decided goes out once kFlushDeadline passed since the last flush, without waiting
  // for the output thread. Looked at once per block read, so never per line.
  static constexpr std::chrono::milliseconds kFlushDeadline{10};
  std::chrono::steady_clock::time_point last_flush;
  void FlushIfDue();
  Status wait_status;
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
      c.window, c.lateness, c.emit,
      WindowOperator::Deps{&m.keys, &m.acc, &m.sink, e->stats_.ignored_values.data(), c.by.size()});
  m.op->set_track_changes(!c.state_path.empty());
  *out = std::move(e);
  return Status::Ok();
}

Status Engine::Impl::Open() {
  InputSet::Options opts;
  opts.buffer_size = config.buffer_size;
  opts.max_line_length = config.max_line_length;
  opts.reread_replaced = config.reread_replaced;
  opts.allow_missing_inputs = config.allow_missing_inputs;
  // Only a state that exists can show where a vanished file's content went (and a new one
  // is not made for a run that fails).
  struct stat st;
  opts.defer_vanished = !config.state_path.empty() && ::stat(config.state_path.c_str(), &st) == 0;
  opts.state_path = config.state_path;
  opts.warn = [this](const std::string& m) { Warn(m); };
  opts.max_time = [this](int i) { return tracker.max_time(i); };
  opts.quiet_since = [this](int i) { return idleness.quiet_since(i); };
  Status s = InputSet::Open(config.inputs, std::move(opts), &inputs);
  if (!s.ok()) return s;
  for (size_t i = 0; i < inputs->size(); ++i) inputs->reader(i).set_stop_flag(&g_stop_signal);
  if (config.change_outputs)
    outputs.set_change_outputs(config.overwrite, [this](const std::string& m) { Warn(m); });
  if (!config.state_path.empty()) {
    bool resumed = false;
    if (!(s = OpenState(&resumed)).ok()) return s;
    if (!(s = inputs->VanishedError()).ok() || nothing_to_do) return s;
    if (!resumed && !config.overwrite && !(s = CheckFreshOutputs()).ok()) return s;
  }
  // --follow: plain files (not those a rotation renamed away, which are finished).
  for (size_t i = 0; config.follow && i < inputs->size(); ++i) {
    LineReader& r = inputs->reader(i);
    if (!r.is_regular() || r.is_stdin() || inputs->rotated(i)) continue;
    if (r.compressed()) {
      Warn(fmt::format("{} is compressed: it is read to its end, not followed", r.name()));
      continue;
    }
    inputs->Follow(i, [this](const std::string& m) { Warn(m); });
  }
  // What is made of a compressed input reaches no output before the file was checked whole.
  outputs.set_gate([this] { return inputs->WaitVerified(); });
  if (!(s = outputs.Open()).ok()) return s;
  if (config.faults.fail_writes_after >= 0) {
    write_budget = config.faults.fail_writes_after;
    outputs.set_write_budget(&write_budget);
  }
  writer = std::make_unique<RecordWriter>(
      config.format, KeyNames(config),
      [&] {
        std::vector<std::string> n;
        for (const AggSpec& a : config.aggs) n.push_back(a.name);
        return n;
      }(),
      config.emit == EmitMode::kUpdate, &outputs.results());
  sink.set_writer(writer.get());
  if (outputs.results().bytes_written() == 0) writer->WriteHeader();
  // A new job commits a first checkpoint before it writes any record: a run killed from here
  // on resumes from it, with each output cut back to the length it had (what '>>' appended
  // to, say), instead of starting a new job after output it already wrote.
  if (store != nullptr && store->is_new()) return checkpointer->Take(false);
  return Status::Ok();
}

// The job's checkpoint components, restored in this order (Checkpointer::Resume).
Status Engine::Impl::OpenState(bool* resumed) {
  Status s = StateStore::Open(config.state_path, config.durable, &store);
  if (!s.ok()) return s;
  if (!(s = store->CheckQuery(QueryText(config))).ok()) return s;
  inputs->TrackForCheckpoints();
  checkpointer = std::make_unique<Checkpointer>(
      store.get(), &config,
      CheckpointDeps{inputs.get(), &outputs, op.get(), &tracker, &idleness, &clock, stats});
  for (CheckpointComponent* c : std::initializer_list<CheckpointComponent*>{
           &counters, &tracker, inputs.get(), op.get(), &outputs})
    checkpointer->Add(c);
  if (store->is_new()) return Status::Ok();
  bool finished = false;
  if (!(s = checkpointer->Resume(&finished)).ok()) return s;
  watermark = tracker.current();
  *resumed = true;
  if (finished) return CheckFinished();
  return Status::Ok();
}

// A new job with --state keeps what it writes across runs; outputs that already hold data
// (named files; standard output through '>>' is appended to on purpose) are someone else's,
// or an earlier job's whose state is gone: refused unless --overwrite.
Status Engine::Impl::CheckFreshOutputs() {
  for (const std::string* path : {&config.output, &config.late_output, &config.errors_output}) {
    struct stat st;
    if (path->empty() || *path == "-" || ::stat(path->c_str(), &st) != 0 || st.st_size == 0)
      continue;
    return Status::Refused(fmt::format(
        "{} already holds {} bytes and {} starts a new job, which would overwrite them; nothing "
        "was written. Give --overwrite to replace them, resume the job that wrote them with its "
        "own --state file, or write elsewhere",
        *path, static_cast<uint64_t>(st.st_size), config.state_path));
  }
  return Status::Ok();
}

// The stream ended in an earlier run: with no new input there is nothing to do.
Status Engine::Impl::CheckFinished() {
  for (size_t i = 0; i < inputs->size(); ++i) {
    Line line;
    bool have = false;
    Status s = inputs->reader(i).Next(&line, &have);
    if (!s.ok()) return s;
    if (have) {
      return Status::Refused(
          fmt::format("state file {} belongs to a stream that has ended (a run without --hold "
                      "read it to the end), but {} has new "
                      "data; start a new --state file, and use --hold on runs over a growing log",
                      config.state_path, inputs->reader(i).name()));
    }
  }
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
    if (t >= min_time && t <= max_time && !TooFarAhead(t)) {
      tracker.Observe(input, t);
      Advance(tracker.Update());
    }
    return Status::Ok();
  }
  if (t < min_time || t > max_time) [[unlikely]] {
    return BadLine(input, line, BadKind::kTimeRange,
                   fmt::format("event time {} is outside the times this query can window ({} to "
                               "{}, from the window, --delay and --lateness)",
                               FormatRfc3339(t), FormatRfc3339(min_time), FormatRfc3339(max_time)));
  }
  if (TooFarAhead(t)) [[unlikely]] {
    const bool wm = watermark != kMinusInfinity;
    return BadLine(input, line, BadKind::kTooFarAhead,
                   fmt::format("event time {} is more than {} ahead of the {} ({}; --max-future)",
                               FormatRfc3339(t), FormatDuration(config.max_future),
                               wm ? "watermark" : "wall clock", FormatRfc3339(FutureReference())));
  }
  uint32_t key = keys.Intern(ev.key, ev.key_hash, ev.key_token, ev.key_slot);
  ++seq;
  const AddResult added = op->Add(KeyedEvent{key, t, ev.aggs, seq});
  keys.ReleaseIfUnused(key);
  if (!added.accepted()) {
    // Late lines leave the fast path: check the whole line before counting or copying it.
    if (!json_checker.IsValid(std::string_view(line.data, line.size)))
      return BadLine(input, line, BadKind::kNotJson, "invalid JSON");
    report.LateEvent(inputs->reader(input).name(), line, t, watermark, added.windows);
  } else {
    ++stats->events;
    if (added.missed > 0) [[unlikely]] {
      // Its windows start a slide apart and the late ones are its first.
      const Nanos first_end = config.window.NextEndAfter(t);
      const Nanos last_end = SatAdd(first_end, (added.missed - 1) * config.window.slide);
      const MissedWindows missed{added.windows,
                                 added.missed,
                                 SatSub(first_end, config.window.size),
                                 first_end,
                                 SatSub(last_end, config.window.size),
                                 last_end};
      // The line is in the windows already: one that is not valid JSON as a whole (its fields
      // could be read) is still an event, and its record holds it as a string.
      const bool valid = json_checker.IsValid(std::string_view(line.data, line.size));
      report.PartlyLateEvent(inputs->reader(input).name(), line, t, watermark, missed, valid);
    }
  }
  tracker.Observe(input, t);
  Advance(tracker.Update());
  return Status::Ok();
}

void Engine::Impl::SetIdle(int input) {
  tracker.SetIdle(input, true);
  Advance(tracker.Update());
}

bool Engine::Impl::AnyIdleReady() {
  for (size_t i = 0; i < inputs->size(); ++i) {
    if (tracker.idle(static_cast<int>(i)) && pool->Ready(static_cast<int>(i))) return true;
  }
  return false;
}

bool Engine::Impl::Rejoin() {
  bool any = false;
  for (size_t i = 0; i < inputs->size(); ++i) {
    const int k = static_cast<int>(i);
    if (tracker.idle(k) && pool->Ready(k)) {
      tracker.SetIdle(k, false);
      idleness.LineRead(k, clock.Now());  // not idle again before its timeout
      any = true;
    }
  }
  return any;
}

void Engine::Impl::WallClockProgress(Nanos now) {
  if (!tracker.AllIdle()) return;
  Advance(tracker.Raise(idleness.WallClockWatermark(tracker.top(), now)));
}

void Engine::Impl::WaitForAny() {
  waiting_on = -1;
  while (g_stop_signal == 0 && wait_status.ok()) {
    if (Rejoin()) return;
    Tick();
    if (Rejoin()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void Engine::Impl::ReportProgress(bool done) {
  auto now = std::chrono::steady_clock::now();
  if (!done && now - last_progress < std::chrono::milliseconds(200)) return;
  last_progress = now;
  Progress p;
  bool sized = true;  // a compressed input's decompressed size is not known
  for (size_t i = 0; i < inputs->size(); ++i) {
    p.bytes_read += read_to[i];
    p.total_bytes += inputs->reader(i).file_size();
    sized = sized && !inputs->reader(i).compressed();
  }
  if (!sized) p.total_bytes = 0;
  p.events = stats->events;
  p.watermark = watermark;
  p.open_windows = op->open_entries();
  p.done = done;
  progress->OnProgress(p);
}

void Engine::Impl::FlushIfDue() {
  const uint64_t records =
      stats->windows_emitted + stats->late_events + stats->partly_late_events + stats->bad_lines;
  if (records == flushed_records) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_flush < kFlushDeadline) return;
  flushed_records = records;
  last_flush = now;
  if (output_thread != nullptr) {
    output_thread->FlushSoon();
  } else {
    (void)outputs.results().Flush();  // errors stay in the file's status, reported at Sync
  }
  (void)outputs.late().Flush();
  (void)outputs.errors().Flush();
}

bool Engine::Impl::Tick() {
  bool wait = true;
  if (idleness.enabled()) {
    const Nanos now = clock.Now();
    idleness.Settle(now);
    if (waiting_on >= 0 && !tracker.idle(waiting_on) && idleness.IdleAt(waiting_on, now)) {
      SetIdle(waiting_on);
    }
    WallClockProgress(now);
    // Another input may be read meanwhile: the idle one is looked at again between lines.
    if (waiting_on >= 0 && inputs->size() > 1) {
      bool others = false;
      for (size_t i = 0; i < inputs->size(); ++i)
        others = others || (static_cast<int>(i) != waiting_on && !done[i]);
      if (others && (tracker.idle(waiting_on) || AnyIdleReady())) wait = false;
    }
  }
  const uint64_t records =
      stats->windows_emitted + stats->late_events + stats->partly_late_events + stats->bad_lines;
  if (records != flushed_records) {
    flushed_records = records;
    if (output_thread != nullptr) output_thread->Drain();
    Status s = outputs.Sync(false);
    if (!s.ok() && wait_status.ok()) wait_status = s;
    last_flush = std::chrono::steady_clock::now();
  }
  if (checkpointer != nullptr && wait_status.ok()) {
    Status s = checkpointer->WhileWaiting();
    if (!s.ok()) wait_status = s;
  }
  if (progress != nullptr) ReportProgress(false);
  return wait;
}

Status Engine::Impl::Stop() {
  stopped_by = g_stop_signal;
  // What was processed (workers may have read further).
  for (size_t i = 0; i < read_to.size(); ++i) {
    stats->bytes_read +=
        inputs->reader(i).earlier_files_bytes() + read_to[i] - inputs->start_offset(i);
  }
  return checkpointer != nullptr ? checkpointer->Take(false) : Status::Ok();
}

Status Engine::Impl::ReadAll() {
  report.BeginRun();
  if (g_stop_signal != 0) return Stop();  // a signal before the first line
  const size_t n = inputs->size();
  uint32_t until_progress = 0;
  last_progress = std::chrono::steady_clock::now();
  if (checkpointer != nullptr) checkpointer->RestartInterval();
  uint64_t total = 0;
  bool all_files = true;
  for (size_t i = 0; i < n; ++i) {
    // (A compressed file's size says little of the bytes it decompresses to.)
    all_files = all_files && inputs->reader(i).is_regular() && !inputs->reader(i).compressed();
    total += inputs->reader(i).file_size();
  }
  // Threads cannot pay for their start on files that fit in one block: those are read and
  // parsed on this thread (a pool with no workers), as with --threads 1. Nor do several inputs
  // of which some may go idle: a worker waiting on a quiet pipe would hold up the others.
  // Followed files are read on this thread too (a worker waiting for one to grow would hold up
  // the others).
  bool live = false;
  for (size_t i = 0; i < n; ++i)
    live = live || !inputs->reader(i).is_regular() || inputs->reader(i).following();
  const bool threads = config.threads > 1 && !(all_files && total <= config.buffer_size) &&
                       !(idleness.enabled() && n > 1 && live) && !config.follow;
  {
    std::vector<LineReader*> rs;
    for (size_t i = 0; i < n; ++i) rs.push_back(&inputs->reader(i));
    // Blocks of two buffers: half the hand-offs between threads (each a wake-up that leaves a
    // core idle for a moment); job 1 with threads 0.671 -> 0.657 s, 22 -> 39 MB of peak RSS.
    pool = std::make_unique<ParsePool>(config, std::move(rs), 2 * config.buffer_size);
    pool->set_stop_flag(&g_stop_signal);
    pool->set_return_while_waiting(true);
    // The engine's thread parses too when it has nothing to apply (ParsePool::Next).
    Status s = pool->Start(threads ? config.threads - 1 : 0);
    if (!s.ok()) return s;
  }
  if (threads) {
    // Sorting, formatting and writing the records of a firing moves off the applying thread
    // too: with many keys (--by user) it is a quarter of that thread's work.
    output_thread = std::make_unique<OutputThread>(writer.get(), acc.num_aggs(),
                                                   [this] { (void)outputs.results().Flush(); });
    sink.set_output_thread(output_thread.get());
    if (checkpointer != nullptr) checkpointer->set_output_thread(output_thread.get());
  }
  read_to.assign(n, 0);
  for (size_t i = 0; i < n; ++i) read_to[i] = inputs->start_offset(i);
  done.assign(n, false);
  size_t remaining = n;
  uint32_t until_rejoin = 0;
  const bool idle_on = idleness.enabled();
  uint64_t blocks = 0;
  Line line;
  Event event;
  while (remaining > 0) {
    // Idle inputs that have input again rejoin (looked at every 1024 picks).
    if (idle_on && ++until_rejoin == 1024) {
      until_rejoin = 0;
      Rejoin();
    }
    // Watermark alignment: read from the unfinished input with the lowest maximum event
    // time so far; ties go to the earlier input. Idle inputs are read when nothing else is.
    size_t pick = n;
    size_t unfinished = 0, last = n;
    for (size_t i = 0; i < n; ++i) {
      if (done[i]) continue;
      ++unfinished;
      last = i;
      if (tracker.idle(static_cast<int>(i))) continue;
      if (pick == n || tracker.max_time(static_cast<int>(i)) <
                           tracker.max_time(static_cast<int>(pick)))
        pick = i;
    }
    if (pick == n) {
      if (unfinished == 1) {
        pick = last;  // one input left: wait on it, idle or not
      } else {
        WaitForAny();
        if (!wait_status.ok()) return wait_status;
        if (g_stop_signal != 0) return Stop();
        continue;
      }
    }
    waiting_on = static_cast<int>(pick);
    // Keep reading the picked input while it stays the lowest (always, with one input).
    while (true) {
      bool have;
      Status s = pool->Next(static_cast<int>(pick), &line, &event, &have);
      if (!s.ok()) return s;
      if (pool->interrupted()) return Stop();  // a signal while waiting for input
      if (!have && pool->pending()) {  // no line yet: the tick, then wait on or turn away
        const bool wait = Tick();
        if (!wait_status.ok()) return wait_status;
        if (wait) continue;
        pool->StopWaiting(static_cast<int>(pick));
        break;  // it went idle, or an idle one has input again
      }
      // Under --hold, a last line without its '\n' may still be being written: leave it for
      // the next run, and keep the input holding the watermark back, unless a rotation renamed
      // it away (nothing more will be written to it: its last line is whole).
      if (!have || (config.hold && !line.terminated && !inputs->rotated(pick))) {
        // A stop signal that came as the input ended (its writer closed it after signalling):
        // the open windows stay unwritten all the same.
        if (g_stop_signal != 0) return Stop();
        if (!have) inputs->Ended(pick);
        done[pick] = true;
        --remaining;
        if (!config.hold || inputs->rotated(pick)) {
          tracker.Finish(static_cast<int>(pick));
          tracker.SetIdle(static_cast<int>(pick), false);
          Advance(tracker.Update());
        }
        break;
      }
      if (idle_on) {
        idleness.Touch(static_cast<int>(pick));
        if (tracker.idle(static_cast<int>(pick))) tracker.SetIdle(static_cast<int>(pick), false);
      }
      Nanos before = tracker.max_time(static_cast<int>(pick));
      s = ProcessLine(static_cast<int>(pick), line, event);
      if (!s.ok()) return s;
      read_to[pick] = line.end_offset;
      // Files that are not followed are read as fast as they go: no deadline for them.
      if (live && pool->blocks() != blocks) {
        blocks = pool->blocks();
        FlushIfDue();
      }
      if (g_stop_signal != 0) {
        if (store != nullptr) inputs->Consumed(pick, line);
        return Stop();
      }
      if (store != nullptr) {
        inputs->Consumed(pick, line);
        if (!(s = checkpointer->AfterLine()).ok()) return s;
      }
      // Looking at the clock every 16k lines keeps progress off the hot path.
      if (progress != nullptr && ++until_progress == 16384) {
        until_progress = 0;
        ReportProgress(false);
      }
      if (n > 1 && tracker.max_time(static_cast<int>(pick)) != before) break;
    }
  }
  // Under --hold, the inputs at their end that have been quiet for --idle-timeout (in this
  // run and the ones before) hold nothing back; when that is all of them, event time has
  // moved on with the wall clock.
  if (idleness.enabled() && config.hold) {
    const Nanos now = clock.Now();
    idleness.Settle(now);
    for (size_t i = 0; i < n; ++i) {
      const int k = static_cast<int>(i);
      if (!tracker.finished(k) && !tracker.idle(k) && idleness.IdleAt(k, now)) SetIdle(k);
    }
    WallClockProgress(now);
  }
  // Workers may still be reading ahead (under --hold, past the line left for the next run):
  // stop them before looking at what the readers consumed.
  pool->Stop();
  for (size_t i = 0; i < pool->checked_fields().size(); ++i) {
    if (i >= pool->fields_seen().size() || !pool->fields_seen()[i])
      report.NoteUnseenField(pool->checked_fields()[i], pool->checked_every_line()[i] != 0);
  }
  for (size_t i = 0; i < pool->expr_mismatches().size() && i < pool->expr_labels().size(); ++i) {
    if (pool->expr_mismatches()[i] > 0)
      report.NoteMismatches(pool->expr_labels()[i], pool->expr_mismatches()[i]);
  }
  pool.reset();
  // A damaged compressed input fails the run even when nothing was written from it.
  if (Status v = inputs->WaitVerified(); !v.ok()) return v;
  for (size_t i = 0; i < n; ++i)
    stats->bytes_read += inputs->reader(i).earlier_files_bytes() +
                         inputs->reader(i).bytes_consumed() - inputs->start_offset(i);
  if (progress != nullptr) ReportProgress(true);
  if (checkpointer != nullptr) return checkpointer->Take(!config.hold);
  return Status::Ok();
}

Status Engine::Impl::Finish() {
  if (checkpointer != nullptr) checkpointer->set_output_thread(nullptr);
  output_thread.reset();  // writes what it holds
  return outputs.Close();
}

Status Engine::Run(std::FILE* diag, ProgressListener* progress) {
  Impl& m = *impl_;
  m.report.set_diag(diag, progress);
  m.progress = progress;
  Status s = m.Open();
  // A stop signal while an open waited (a FIFO with no writer yet): stopped, not failed.
  if (!s.ok() && g_stop_signal != 0) {
    m.stopped_by = g_stop_signal;
    return Status::Ok();
  }
  const bool opened = s.ok();
  if (s.ok() && !m.nothing_to_do) s = m.ReadAll();
  m.pool.reset();  // stops the workers
  if (m.nothing_to_do) return s;
  Status f = m.Finish();
  if (s.ok()) s = f;
  // A run that had no usable line (the wrong --time, --time-format, not NDJSON) fails, with
  // what most lines said; so does one with more bad lines than --max-bad-ratio allows.
  if (s.ok() && opened && m.stopped_by == 0) s = m.report.Verdict();
  // A run refused at opening (its state, its inputs) read nothing: the restored job's totals
  // are not this run's to report.
  if (!config_.quiet && opened) m.report.WarnAtEnd(m.tracker.top());
  return s;
}

bool Engine::nothing_to_do() const { return impl_->nothing_to_do; }

EngineStats Engine::run_stats() const {
  const EngineStats& a = impl_->report.at_start();
  EngineStats r = stats_;
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
  return r;  // bytes_read and the checkpoints' counts are this run's already
}
void Engine::InstallStopHandlers() {
  struct sigaction sa = {};
  sa.sa_handler = OnStopSignal;  // no SA_RESTART: a read waiting for input returns
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int Engine::stopped_by_signal() const { return impl_->stopped_by; }

}  // namespace logtide
