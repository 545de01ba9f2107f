#include "engine/engine.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <chrono>
#include <csignal>
#include <cstdlib>

#include "agg/accumulators.h"
#include "engine/event_parser.h"
#include "engine/key_table.h"
#include "engine/output_thread.h"
#include "engine/parse_pool.h"
#include "engine/result_order.h"
#include "window/window_operator.h"
#include "input/line_reader.h"
#include "json/extractor.h"
#include "output/json_text.h"
#include "output/output_file.h"
#include "output/record_writer.h"
#include "state/state_store.h"
#include "time/duration.h"
#include "time/time_format.h"
#include "watermark/watermark.h"

namespace logtide {

namespace {

volatile int g_stop_signal = 0;  // sig_atomic_t is int here; LineReader takes an int flag
static_assert(sizeof(std::sig_atomic_t) == sizeof(int));
extern "C" void OnStopSignal(int sig) { g_stop_signal = sig; }

constexpr uint64_t kFingerprintBytes = 4096;
constexpr uint32_t kEngineSnapshotVersion = 2;
constexpr uint64_t kTailBytes = 64;

std::string HashHex(uint64_t h) { return fmt::format("{:016x}", h); }
std::string HashOf(std::string_view bytes) { return HashHex(XXH64(bytes.data(), bytes.size(), 0)); }

}  // namespace

std::string QueryText(const EngineConfig& c) {
  // Canonical: aggregates as NAME=FN(FIELD) from their parsed form, so spacing and a default
  // name written out or left off do not make another query.
  std::string by, aggs;
  for (size_t i = 0; i < c.by.size(); ++i) by += (i ? "," : "") + c.by[i];
  for (size_t i = 0; i < c.aggs.size(); ++i) {
    const AggSpec& a = c.aggs[i];
    aggs += fmt::format("{}{}={}{}", i ? " " : "", a.name, AggKindName(a.kind),
                        a.field.empty() ? "" : "(" + a.field + ")");
  }
  return fmt::format(
      "window={}\ntime={}\ntime-format={}\nby={}\nagg={}\ndelay={}\nlateness={}\nemit={}\nformat={"
      "}",
      c.window.ToString(), c.time_field, c.time_format, by, aggs, FormatDuration(c.delay),
      FormatDuration(c.lateness), c.emit == EmitMode::kUpdate ? "update" : "final",
      c.format == OutputFormat::kCsv ? "csv" : "ndjson");
}

struct Engine::Impl final : public ResultEmitter {
  Impl(const EngineConfig& c, EngineStats* s) : config(c), stats(s), acc(c.aggs) {}

  const EngineConfig& config;
  EngineStats* stats;
  std::unique_ptr<EventParser> parser;  // with --threads 1
  JsonChecker json_checker;             // late lines, before they are counted
  KeyTable keys;
  KeyCache key_cache{&keys};  // after `keys`: it holds references into it
  Accumulators acc;
  std::unique_ptr<WindowOperator> op;
  OutputFile out, late_out, errors_out;
  std::unique_ptr<RecordWriter> writer;
  ResultOrder result_order;  // without an output thread
  // With worker threads: writes the records through `writer` (so declared after it and `out`).
  std::unique_ptr<OutputThread> output_thread;
  std::vector<std::unique_ptr<LineReader>> readers;
  std::vector<uint64_t> read_to;     // per input: the end of the last line processed
  std::unique_ptr<ParsePool> pool;  // with --threads N > 1; reads `readers`, so declared after
  std::unique_ptr<WatermarkTracker> tracker;
  Nanos watermark = kMinusInfinity;
  uint64_t seq = 0;
  int reported = 0;
  std::FILE* diag = stderr;
  ProgressListener* progress = nullptr;
  std::chrono::steady_clock::time_point last_progress;

  // Durable state (--state).
  struct Track {
    uint64_t offset = 0;  // just past the last line processed
    uint64_t line = 0;
    uint64_t start_offset = 0;      // where this run began
    XXH64_state_t* hash = nullptr;  // stdin: hash of all bytes consumed so far
    ~Track() {
      if (hash != nullptr) XXH64_freeState(hash);
    }
  };
  std::unique_ptr<StateStore> store;
  std::vector<std::unique_ptr<Track>> tracks;
  std::vector<std::unique_ptr<StructuralIndex>> indexes;  // per input: its current run of lines
  uint64_t checkpoints = 0;
  uint64_t window_log_rows = 0;
  uint64_t since_checkpoint = 0;
  std::chrono::steady_clock::time_point last_checkpoint;
  bool nothing_to_do = false;
  int stopped_by = 0;

  void EmitWindows(const std::vector<WindowResult>& results) override {
    stats->windows_emitted += results.size();
    if (output_thread != nullptr) {
      output_thread->Add(results, keys, acc);
      return;
    }
    const size_t n = results.size();
    result_order.Clear();
    for (size_t i = 0; i < n; ++i) {
      // Results come in id order of their keys at best: fetch a few keys ahead.
      if (i + 8 < n) keys.Prefetch(results[i + 8].key);
      result_order.Add(results[i].start, results[i].end, keys.encoded(results[i].key));
    }
    const std::vector<uint32_t>& order = result_order.Sort();
    for (size_t i = 0; i < n; ++i) {
      if (i + 8 < n) keys.Prefetch(results[order[i + 8]].key);
      const WindowResult& r = results[order[i]];
      writer->BeginRecord(r.start, r.end);
      std::string_view k = keys.encoded(r.key);
      while (!k.empty()) writer->Key(DecodeValue(&k));
      for (size_t a = 0; a < acc.num_aggs(); ++a) acc.Result(r.slot, a, writer.get());
      writer->EndRecord(r.revision);
    }
  }

  Status Open();
  Status NextLine(int input, Line* line, Event* event, bool* have, bool* interrupted);
  Status ProcessLine(int input, const Line& line, const Event& event);
  Status BadLine(int input, const Line& line, std::string_view reason);
  void LateEvent(int input, const Line& line, Nanos t);
  void Advance(Nanos w) {
    if (w > watermark) {
      watermark = w;
      op->OnWatermark(w);
    }
  }
  Status ReadAll();
  void ReportProgress(bool done);
  Status OpenState(bool* resumed, Checkpoint* cp);
  Status MatchInputs(const Checkpoint& cp);
  Status OpenOutputs(const Checkpoint* cp);
  Status TakeCheckpoint(bool finished);
  std::string SnapshotEngine(std::vector<StateOp>* window_ops, bool compact);
  Status RestoreEngine(std::string_view blob,
                       const std::vector<std::pair<std::string, std::string>>& rows);
  void Consumed(int input, const Line& line);
  void AtCheckpoint(const char* point, uint64_t n) {
    if (config.faults.at_checkpoint != nullptr) config.faults.at_checkpoint(point, n);
  }
  int64_t write_budget = -1;  // FaultHooks::fail_writes_after
  Status Finish();
};

Engine::Engine(const EngineConfig& config) : config_(config) {}
Engine::~Engine() = default;

Status Engine::Create(const EngineConfig& config, std::unique_ptr<Engine>* out) {
  std::unique_ptr<Engine> e(new Engine(config));
  EngineConfig& c = e->config_;
  if (c.inputs.empty()) c.inputs.push_back("-");
  if (c.aggs.empty()) {
    AggSpec count;
    Status s = ParseAggSpec("count", &count);
    if (!s.ok()) return s;
    c.aggs.push_back(count);
  }
  // Output column names must be unique.
  std::vector<std::string> names = {"window_start", "window_end"};
  names.insert(names.end(), c.by.begin(), c.by.end());
  for (const AggSpec& a : c.aggs) names.push_back(a.name);
  if (c.emit == EmitMode::kUpdate) names.push_back("revision");
  for (size_t i = 0; i < names.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (names[i] == names[j]) {
        return Status::InvalidArgument(
            fmt::format("two output fields are named \"{}\"; rename an aggregate with NAME=SPEC "
                        "(e.g. --agg total=sum(bytes))",
                        names[i]));
      }
    }
  }
  e->stats_.ignored_values.assign(c.aggs.size(), 0);
  e->impl_ = std::make_unique<Impl>(e->config_, &e->stats_);
  Impl& m = *e->impl_;
  Status s = EventParser::Create(c, &m.parser);
  if (!s.ok()) return s;
  m.op = WindowOperator::Create(c.window, c.lateness, c.emit,
                                WindowOperator::Deps{&m.keys, &m.acc, &m,
                                                     e->stats_.ignored_values.data()});
  m.op->set_track_changes(!c.state_path.empty());
  *out = std::move(e);
  return Status::Ok();
}

Status Engine::Impl::Open() {
  for (const std::string& path : config.inputs) {
    std::unique_ptr<LineReader> r;
    Status s = LineReader::Open(path, config.buffer_size, &r);
    if (!s.ok()) return s;
    if (!config.state_path.empty()) r->set_stop_flag(&g_stop_signal);
    readers.push_back(std::move(r));
    tracks.push_back(std::make_unique<Track>());
    indexes.push_back(std::make_unique<StructuralIndex>());
  }
  tracker = std::make_unique<WatermarkTracker>(static_cast<int>(readers.size()), config.delay);
  Checkpoint cp;
  bool resumed = false;
  if (!config.state_path.empty()) {
    Status s = OpenState(&resumed, &cp);
    if (!s.ok() || nothing_to_do) return s;
  }
  Status s = OpenOutputs(resumed ? &cp : nullptr);
  if (!s.ok()) return s;
  writer = std::make_unique<RecordWriter>(
      config.format, config.by,
      [&] {
        std::vector<std::string> n;
        for (const AggSpec& a : config.aggs) n.push_back(a.name);
        return n;
      }(),
      config.emit == EmitMode::kUpdate, &out);
  if (out.bytes_written() == 0) writer->WriteHeader();
  return Status::Ok();
}

Status Engine::Impl::OpenState(bool* resumed, Checkpoint* cp) {
  Status s = StateStore::Open(config.state_path, config.durable, &store);
  if (!s.ok()) return s;
  if (!(s = store->CheckQuery(QueryText(config))).ok()) return s;
  for (size_t i = 0; i < readers.size(); ++i) {
    if (readers[i]->is_stdin()) {
      tracks[i]->hash = XXH64_createState();
      XXH64_reset(tracks[i]->hash, 0);
    }
  }
  if (store->is_new()) return Status::Ok();
  if (!(s = store->Load(cp)).ok()) return s;
  if (!(s = RestoreEngine(cp->engine, cp->windows)).ok()) return s;
  cp->windows.clear();
  window_log_rows = cp->window_log_rows;
  checkpoints = cp->checkpoints;
  *resumed = true;
  if (!(s = MatchInputs(*cp)).ok()) return s;
  if (cp->finished) {
    // The stream ended in an earlier run: with no new input there is nothing to do.
    for (size_t i = 0; i < readers.size(); ++i) {
      Line line;
      bool have = false;
      if (!(s = readers[i]->Next(&line, &have)).ok()) return s;
      if (have) {
        return Status::Refused(
            fmt::format("state file {} belongs to a stream that has ended (a run without --hold "
                        "read it to the end), but {} has new "
                        "data; start a new --state file, and use --hold on runs over a growing log",
                        config.state_path, readers[i]->name()));
      }
    }
    nothing_to_do = true;
  }
  return Status::Ok();
}

// Finds each input's saved position: files by the hash of their first bytes (so a rotated file
// is found under its new name), standard input by the hash of the bytes already consumed.
Status Engine::Impl::MatchInputs(const Checkpoint& cp) {
  std::vector<bool> used(cp.inputs.size(), false);
  for (size_t i = 0; i < readers.size(); ++i) {
    LineReader& r = *readers[i];
    Track& t = *tracks[i];
    int found = -1;
    Status s;
    if (r.is_stdin()) {
      for (size_t k = 0; k < cp.inputs.size() && found < 0; ++k) {
        if (!used[k] && cp.inputs[k].kind == "stdin") found = static_cast<int>(k);
      }
      if (found < 0) continue;
      const InputPosition& p = cp.inputs[found];
      s = r.SkipTo(p.offset, p.line,
                   [&](std::string_view b) { XXH64_update(t.hash, b.data(), b.size()); });
      if (!s.ok()) return s;
      if (HashHex(XXH64_digest(t.hash)) != p.fingerprint) {
        return Status::Refused(fmt::format(
            "standard input is not the stream the state file {} was made from: its first {} "
            "bytes differ; nothing was written",
            config.state_path, p.offset));
      }
    } else {
      std::string head;
      for (size_t k = 0; k < cp.inputs.size(); ++k) {
        const InputPosition& p = cp.inputs[k];
        if (used[k] || p.kind != "file" || p.fingerprint_len > r.file_size()) continue;
        if (!(s = r.ReadAt(0, p.fingerprint_len, &head)).ok()) return s;
        if (HashOf(head) != p.fingerprint) continue;
        // Among files that share their first bytes, the same file (device and inode) wins,
        // then the same name.
        auto rank = [&](const InputPosition& q) {
          return (q.dev == r.dev() && q.ino == r.ino() ? 2 : 0) +
                 (q.name == config.inputs[i] ? 1 : 0);
        };
        if (found < 0 || rank(p) > rank(cp.inputs[found])) found = static_cast<int>(k);
      }
      if (found < 0) continue;  // a new file: read from its start
      const InputPosition& p = cp.inputs[found];
      std::string problem;
      if (r.file_size() < p.offset) {
        problem = fmt::format(
            "{} is {} bytes long, shorter than the {} bytes already read from it: it was truncated "
            "or "
            "replaced",
            r.name(), r.file_size(), p.offset);
      } else {
        std::string tail;
        uint64_t from = p.offset - std::min(p.offset, kTailBytes);
        if (!(s = r.ReadAt(from, p.offset - from, &tail)).ok()) return s;
        if (HashOf(tail) != p.tail_hash) {
          problem = fmt::format(
              "{}: the bytes before offset {}, where the last run stopped, have changed: the file "
              "was "
              "replaced or rewritten",
              r.name(), p.offset);
        }
      }
      if (!problem.empty()) {
        if (!config.reread_replaced) {
          return Status::Refused(
              problem +
              "; nothing was written (--reread-replaced reads such a file from its start)");
        }
        if (!config.quiet)
          fmt::print(diag, "logtide: warning: {}; reading it from its start (--reread-replaced)\n",
                     problem);
        continue;
      }
      if (!(s = r.SkipTo(p.offset, p.line, [](std::string_view) {})).ok()) return s;
    }
    used[found] = true;
    const InputPosition& p = cp.inputs[found];
    t.offset = t.start_offset = p.offset;
    t.line = p.line;
    tracker->Observe(static_cast<int>(i), p.max_time);
  }
  return Status::Ok();
}

Status Engine::Impl::OpenOutputs(const Checkpoint* cp) {
  auto committed = [&](const char* role) -> uint64_t {
    if (cp == nullptr) return 0;
    for (const OutputPosition& o : cp->outputs) {
      if (o.role == role) return o.length;
    }
    return 0;
  };
  auto open = [&](OutputFile* f, const std::string& path, const char* role) -> Status {
    if (cp != nullptr) return f->OpenResume(path, committed(role));
    if (path == "-" && !config.state_path.empty()) {
      // A new job writing to a regular file through '>>': keep what the file already holds.
      struct stat st;
      uint64_t size = ::fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode)
                          ? static_cast<uint64_t>(st.st_size)
                          : 0;
      return f->OpenResume(path, size);
    }
    return f->Open(path);
  };
  Status s = open(&out, config.output, "output");
  if (s.ok() && !config.late_output.empty()) s = open(&late_out, config.late_output, "late-output");
  if (s.ok() && !config.errors_output.empty())
    s = open(&errors_out, config.errors_output, "errors");
  if (config.faults.fail_writes_after >= 0) {
    write_budget = config.faults.fail_writes_after;
    for (OutputFile* f : {&out, &late_out, &errors_out}) f->set_write_budget(&write_budget);
  }
  return s;
}

// Engine snapshot: u32 version (2: panes keep no firing cursor), i64 watermark, u64 seq, u64 lines, events, bad_lines,
// late_events, windows_emitted, u32 aggregates, u64 ignored values each, u32 bad lines reported,
// then the window operator's meta blob (its rows go to the windows table).
std::string Engine::Impl::SnapshotEngine(std::vector<StateOp>* window_ops, bool compact) {
  std::string b;
  ByteWriter w(&b);
  w.U32(kEngineSnapshotVersion);
  w.I64(watermark);
  w.U64(seq);
  for (uint64_t v :
       {stats->lines, stats->events, stats->bad_lines, stats->late_events, stats->windows_emitted})
    w.U64(v);
  w.U32(static_cast<uint32_t>(stats->ignored_values.size()));
  for (uint64_t v : stats->ignored_values) w.U64(v);
  w.U32(static_cast<uint32_t>(reported));
  op->Snapshot(window_ops, &w, compact);
  return b;
}

Status Engine::Impl::RestoreEngine(std::string_view blob,
                                   const std::vector<std::pair<std::string, std::string>>& rows) {
  ByteReader r(blob);
  uint32_t version = r.U32();
  if (r.ok() && version != kEngineSnapshotVersion) {
    return Status::Refused(fmt::format(
        "state file {} was written by another version of logtide (window state format {}, this "
        "version reads {}); it was not changed. Finish the job with the version that wrote it, "
        "or start a new --state file",
        config.state_path, version, kEngineSnapshotVersion));
  }
  watermark = r.I64();
  seq = r.U64();
  for (uint64_t* v : {&stats->lines, &stats->events, &stats->bad_lines, &stats->late_events,
                      &stats->windows_emitted})
    *v = r.U64();
  uint32_t naggs = r.U32();
  if (naggs != stats->ignored_values.size()) r = ByteReader("");
  for (uint64_t& v : stats->ignored_values) v = r.U64();
  reported = static_cast<int>(r.U32());
  if (!r.ok() || !op->Restore(rows, &r, watermark) || !r.at_end()) {
    return Status::Corruption(fmt::format(
        "state file {}: the saved window state is damaged; it was not changed", config.state_path));
  }
  tracker->Restore(watermark);
  return Status::Ok();
}

Status Engine::Impl::TakeCheckpoint(bool finished) {
  const auto started = std::chrono::steady_clock::now();
  const uint64_t n = checkpoints + 1;
  AtCheckpoint("before-flush", n);
  if (output_thread != nullptr) output_thread->Drain();
  for (OutputFile* f : {&out, &late_out, &errors_out}) {
    if (!f->is_open()) continue;
    Status s = f->Sync(config.durable);
    if (!s.ok()) return s;
  }
  AtCheckpoint("before-commit", n);
  Checkpoint c;
  // The window log is rewritten whole once it holds more than twice the live rows: a
  // checkpoint then costs what changed, amortized.
  c.compact = window_log_rows > 2 * op->open_entries() + config.faults.compact_slack;
  c.engine = SnapshotEngine(&c.window_ops, c.compact);
  window_log_rows = (c.compact ? 0 : window_log_rows) + c.window_ops.size();
  c.finished = finished;
  c.checkpoints = n;
  for (size_t i = 0; i < readers.size(); ++i) {
    LineReader& r = *readers[i];
    const Track& t = *tracks[i];
    InputPosition p;
    p.name = config.inputs[i];
    p.offset = t.offset;
    p.line = t.line;
    p.max_time = tracker->max_time(static_cast<int>(i));
    if (r.is_stdin()) {
      p.kind = "stdin";
      p.fingerprint = HashHex(XXH64_digest(t.hash));
      p.fingerprint_len = t.offset;
    } else {
      p.kind = "file";
      std::string bytes;
      Status s = r.ReadAt(0,
                          std::min(kFingerprintBytes,
                                   std::max(t.offset, std::min(r.file_size(), kFingerprintBytes))),
                          &bytes);
      if (!s.ok()) return s;
      p.fingerprint = HashOf(bytes);
      p.fingerprint_len = bytes.size();
      uint64_t from = t.offset - std::min(t.offset, kTailBytes);
      if (!(s = r.ReadAt(from, t.offset - from, &bytes)).ok()) return s;
      p.tail_hash = HashOf(bytes);
      p.dev = r.dev();
      p.ino = r.ino();
    }
    c.inputs.push_back(std::move(p));
  }
  const std::pair<OutputFile*, const char*> outputs[] = {
      {&out, "output"}, {&late_out, "late-output"}, {&errors_out, "errors"}};
  for (const auto& [f, role] : outputs) {
    if (!f->is_open()) continue;
    const std::string& path = f == &out        ? config.output
                              : f == &late_out ? config.late_output
                                               : config.errors_output;
    c.outputs.push_back(OutputPosition{role, path, f->bytes_written()});
  }
  std::string wm = "null";
  if (watermark != kMinusInfinity && watermark != kPlusInfinity)
    wm = "\"" + FormatRfc3339(watermark) + "\"";
  c.info = {{"watermark", wm},
            {"open_windows", std::to_string(op->open_entries())},
            {"pending_timers", std::to_string(op->pending_timers())},
            {"counters", fmt::format("{{\"lines\":{},\"events\":{},\"bad_lines\":{},\"late_"
                                     "events\":{},\"windows_emitted\":{}}}",
                                     stats->lines, stats->events, stats->bad_lines,
                                     stats->late_events, stats->windows_emitted)}};
  Status s = store->Commit(c);
  if (!s.ok()) return s;
  checkpoints = n;
  since_checkpoint = 0;
  last_checkpoint = std::chrono::steady_clock::now();
  ++stats->checkpoints;
  stats->checkpoint_seconds += std::chrono::duration<double>(last_checkpoint - started).count();
  stats->last_checkpoint_rows = c.window_ops.size();
  AtCheckpoint("after-commit", n);
  return Status::Ok();
}

void Engine::Impl::Consumed(int input, const Line& line) {
  Track& t = *tracks[input];
  if (t.hash != nullptr) XXH64_update(t.hash, line.data, line.end_offset - line.offset);
  t.offset = line.end_offset;
  t.line = line.number;
}

Status Engine::Impl::BadLine(int input, const Line& line, std::string_view reason) {
  ++stats->bad_lines;
  const std::string& name = readers[input]->name();
  if (config.on_error == OnError::kFail) {
    return Status::DataError(fmt::format(
        "{}:{}: {} (stopped by --on-error fail; --on-error skip counts bad lines and goes on)",
        name, line.number, reason));
  }
  // With --errors, every bad line goes to that file and none to the terminal.
  if (!config.quiet && !errors_out.is_open() && reported < config.max_reported_errors) {
    ++reported;
    if (progress != nullptr) progress->Clear();
    fmt::print(diag, "logtide: {}:{}: bad line skipped: {}\n", name, line.number, reason);
  }
  if (errors_out.is_open()) {
    std::string* b = errors_out.buffer();
    b->append("{\"input\":");
    AppendJsonString(name, b);
    fmt::format_to(std::back_inserter(*b), ",\"line\":{},\"offset\":{},\"reason\":", line.number,
                   line.offset);
    AppendJsonString(reason, b);
    b->append(",\"raw\":");
    AppendJsonString(std::string_view(line.data, line.size), b);
    b->append("}\n");
    errors_out.MaybeFlush();
  }
  return Status::Ok();
}

void Engine::Impl::LateEvent(int input, const Line& line, Nanos t) {
  ++stats->late_events;
  if (!late_out.is_open()) return;
  std::string* b = late_out.buffer();
  b->append("{\"input\":");
  AppendJsonString(readers[input]->name(), b);
  fmt::format_to(std::back_inserter(*b), ",\"line\":{},\"offset\":{},\"event_time\":\"",
                 line.number, line.offset);
  AppendRfc3339(t, b);
  b->append("\",\"watermark\":\"");
  AppendRfc3339(watermark, b);
  b->append("\",\"reason\":\"late\",\"event\":");
  b->append(line.data, line.size);
  b->append("}\n");
  late_out.MaybeFlush();
}

Status Engine::Impl::NextLine(int input, Line* line, Event* event, bool* have,
                              bool* interrupted) {
  if (pool != nullptr) {
    Status s = pool->Next(input, line, event, have);
    *interrupted = pool->interrupted();
    return s;
  }
  LineReader& r = *readers[input];
  Status s = r.Next(line, have);
  *interrupted = r.interrupted();
  if (!s.ok() || !*have) return s;
  StructuralIndex& index = *indexes[input];
  if (line->run_size != 0) index.SetRun(line->data, line->run_size);
  parser->Parse(line->data, line->size, line->capacity, event, &index);
  return s;
}

Status Engine::Impl::ProcessLine(int input, const Line& line, const Event& ev) {
  ++stats->lines;
  if (ev.kind == Event::Kind::kBlank) return Status::Ok();
  if (ev.kind == Event::Kind::kBad) return BadLine(input, line, ev.reason);
  const Nanos t = ev.time;
  uint32_t key = key_cache.Intern(ev.key, ev.key_hash, ev.key_token, ev.key_slot);
  ++seq;
  bool accepted = op->Add(KeyedEvent{key, t, ev.aggs, seq});
  keys.ReleaseIfUnused(key);
  if (!accepted) {
    // Late lines leave the fast path: check the whole line before counting or copying it.
    if (!json_checker.IsValid(std::string_view(line.data, line.size)))
      return BadLine(input, line, "invalid JSON");
    LateEvent(input, line, t);
  } else {
    ++stats->events;
  }
  tracker->Observe(input, t);
  Advance(tracker->Update());
  return Status::Ok();
}

void Engine::Impl::ReportProgress(bool done) {
  auto now = std::chrono::steady_clock::now();
  if (!done && now - last_progress < std::chrono::milliseconds(200)) return;
  last_progress = now;
  Progress p;
  for (size_t i = 0; i < readers.size(); ++i) {
    p.bytes_read += read_to[i];
    p.total_bytes += readers[i]->file_size();
  }
  p.events = stats->events;
  p.watermark = watermark;
  p.open_windows = op->open_entries();
  p.done = done;
  progress->OnProgress(p);
}

Status Engine::Impl::ReadAll() {
  const size_t n = readers.size();
  uint32_t until_progress = 0;
  last_progress = last_checkpoint = std::chrono::steady_clock::now();
  // Threads cannot pay for their start on files that fit in one block.
  uint64_t total = 0;
  bool all_files = true;
  for (const auto& r : readers) {
    all_files = all_files && r->is_regular();
    total += r->file_size();
  }
  if (config.threads > 1 && !(all_files && total <= config.buffer_size)) {
    std::vector<LineReader*> rs;
    for (const auto& r : readers) rs.push_back(r.get());
    // Blocks of two buffers: half the hand-offs between threads (each a wake-up that leaves a
    // core idle for a moment); job 1 with threads 0.671 -> 0.657 s, 22 -> 39 MB of peak RSS.
    pool = std::make_unique<ParsePool>(config, std::move(rs), 2 * config.buffer_size);
    if (!config.state_path.empty()) pool->set_stop_flag(&g_stop_signal);
    // The engine's thread parses too when it has nothing to apply (ParsePool::Next).
    Status s = pool->Start(config.threads - 1);
    if (!s.ok()) return s;
    // Sorting, formatting and writing the records of a firing moves off the applying thread
    // too: with many keys (--by user) it is a quarter of that thread's work.
    output_thread = std::make_unique<OutputThread>(writer.get(), acc.num_aggs());
  }
  read_to.assign(n, 0);
  for (size_t i = 0; i < n; ++i) read_to[i] = tracks[i]->start_offset;
  std::vector<bool> done(n, false);
  size_t remaining = n;
  Line line;
  Event event;
  while (remaining > 0) {
    // Watermark alignment: read from the unfinished input with the lowest maximum event
    // time so far; ties go to the earlier input.
    size_t pick = n;
    for (size_t i = 0; i < n; ++i) {
      if (!done[i] && (pick == n || tracker->max_time(static_cast<int>(i)) <
                                        tracker->max_time(static_cast<int>(pick))))
        pick = i;
    }
    // Keep reading the picked input while it stays the lowest (always, with one input).
    while (true) {
      bool have, interrupted;
      Status s = NextLine(static_cast<int>(pick), &line, &event, &have, &interrupted);
      if (!s.ok()) return s;
      if (interrupted) {  // a signal while waiting for input: stop here, cleanly
        stopped_by = g_stop_signal;
        return TakeCheckpoint(false);
      }
      // Under --hold, a last line without its '\n' may still be being written: leave it for
      // the next run, and keep the input holding the watermark back.
      if (!have || (config.hold && !line.terminated)) {
        done[pick] = true;
        --remaining;
        if (!config.hold) {
          tracker->Finish(static_cast<int>(pick));
          Advance(tracker->Update());
        }
        break;
      }
      Nanos before = tracker->max_time(static_cast<int>(pick));
      s = ProcessLine(static_cast<int>(pick), line, event);
      if (!s.ok()) return s;
      read_to[pick] = line.end_offset;
      if (store != nullptr) {
        Consumed(static_cast<int>(pick), line);
        if (g_stop_signal != 0) {
          stopped_by = g_stop_signal;
          return TakeCheckpoint(false);
        }
        if (++since_checkpoint >= config.checkpoint_every ||
            ((since_checkpoint & 1023) == 0 &&
             std::chrono::steady_clock::now() - last_checkpoint >=
                 std::chrono::nanoseconds(config.checkpoint_interval))) {
          if (!(s = TakeCheckpoint(false)).ok()) return s;
        }
      }
      // Looking at the clock every 16k lines keeps progress off the hot path.
      if (progress != nullptr && ++until_progress == 16384) {
        until_progress = 0;
        ReportProgress(false);
      }
      if (n > 1 && tracker->max_time(static_cast<int>(pick)) != before) break;
    }
  }
  // Workers may still be reading ahead (under --hold, past the line left for the next run):
  // stop them before looking at what the readers consumed.
  pool.reset();
  for (size_t i = 0; i < readers.size(); ++i)
    stats->bytes_read += readers[i]->bytes_consumed() - tracks[i]->start_offset;
  if (progress != nullptr) ReportProgress(true);
  if (store != nullptr) return TakeCheckpoint(!config.hold);
  return Status::Ok();
}

Status Engine::Impl::Finish() {
  output_thread.reset();  // writes what it holds
  Status s = out.Close();
  Status l = late_out.Close();
  Status e = errors_out.Close();
  if (!s.ok()) return s;
  if (!l.ok()) return l;
  return e;
}

Status Engine::Run(std::FILE* diag, ProgressListener* progress) {
  Impl& m = *impl_;
  m.diag = diag;
  m.progress = progress;
  struct sigaction old_int, old_term;
  if (!config_.state_path.empty()) {
    struct sigaction sa = {};
    sa.sa_handler = OnStopSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
  }
  Status s = m.Open();
  if (s.ok() && !m.nothing_to_do) s = m.ReadAll();
  m.pool.reset();  // stops the workers
  if (!config_.state_path.empty()) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
  }
  if (m.nothing_to_do) return s;
  Status f = m.Finish();
  if (s.ok()) s = f;
  if (!config_.quiet) {
    if (stats_.bad_lines > 0 && config_.errors_output.empty() &&
        config_.on_error == OnError::kSkip) {
      fmt::print(diag,
                 "logtide: warning: {} bad line{} skipped ({} shown above); keep them all with "
                 "--errors FILE\n",
                 stats_.bad_lines, stats_.bad_lines == 1 ? "" : "s", m.reported);
    }
    if (stats_.late_events > 0 && config_.late_output.empty()) {
      fmt::print(diag,
                 "logtide: warning: {} late event{} dropped; allow more disorder with --delay or "
                 "--lateness, "
                 "or keep them with --late-output FILE\n",
                 stats_.late_events, stats_.late_events == 1 ? "" : "s");
    }
    for (size_t i = 0; i < config_.aggs.size(); ++i) {
      if (stats_.ignored_values[i] == 0) continue;
      const AggSpec& a = config_.aggs[i];
      fmt::print(diag, "logtide: warning: {} ignored {} non-numeric value{} of \"{}\"\n", a.text,
                 stats_.ignored_values[i], stats_.ignored_values[i] == 1 ? "" : "s", a.field);
    }
  }
  return s;
}

bool Engine::nothing_to_do() const { return impl_->nothing_to_do; }
int Engine::stopped_by_signal() const { return impl_->stopped_by; }

}  // namespace logtide
