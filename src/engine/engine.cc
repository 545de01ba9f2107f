#include "engine/engine.h"

#include <chrono>

#include <fmt/format.h>

#include "agg/accumulators.h"
#include "engine/key_table.h"
#include "engine/window_operator.h"
#include "input/line_reader.h"
#include "json/extractor.h"
#include "output/json_text.h"
#include "output/output_file.h"
#include "output/record_writer.h"
#include "time/time_format.h"
#include "watermark/watermark.h"

namespace logtide {

struct Engine::Impl final : public ResultEmitter {
  Impl(const EngineConfig& c, EngineStats* s) : config(c), stats(s), acc(c.aggs) {}

  const EngineConfig& config;
  EngineStats* stats;
  FieldExtractor extractor;
  TimeFormat time_format;
  int time_slot = -1;
  std::vector<int> key_slots;
  std::vector<int> agg_slots;  // -1 for plain count
  KeyTable keys;
  Accumulators acc;
  std::unique_ptr<WindowOperator> op;
  OutputFile out, late_out, errors_out;
  std::unique_ptr<RecordWriter> writer;
  std::vector<std::unique_ptr<LineReader>> readers;
  std::unique_ptr<WatermarkTracker> tracker;
  Nanos watermark = kMinusInfinity;
  uint64_t seq = 0;
  int reported = 0;
  std::FILE* diag = stderr;
  ProgressListener* progress = nullptr;
  std::chrono::steady_clock::time_point last_progress;

  // Reused per event: no allocation in the steady state.
  std::vector<ValueRef> values;
  std::vector<ValueRef> agg_inputs;
  std::string key_buf;

  void Emit(const WindowResult& r) override {
    writer->BeginRecord(r.start, r.end);
    std::string_view k = keys.encoded(r.key);
    while (!k.empty()) writer->Key(DecodeValue(&k));
    for (size_t i = 0; i < acc.num_aggs(); ++i) acc.Result(r.slot, i, writer.get());
    writer->EndRecord(r.revision);
    ++stats->windows_emitted;
  }

  Status Open();
  Status ProcessLine(int input, const Line& line);
  Status BadLine(int input, const Line& line, std::string_view reason);
  void LateEvent(int input, const Line& line, Nanos t);
  void Advance(Nanos w) {
    if (w > watermark) {
      watermark = w;
      op->AdvanceWatermark(w);
    }
  }
  Status ReadAll();
  void ReportProgress(bool done);
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
        return Status::InvalidArgument(fmt::format(
            "two output fields are named \"{}\"; rename an aggregate with NAME=SPEC (e.g. --agg total=sum(bytes))", names[i]));
      }
    }
  }
  e->stats_.ignored_values.assign(c.aggs.size(), 0);
  e->impl_ = std::make_unique<Impl>(e->config_, &e->stats_);
  Impl& m = *e->impl_;
  Status s = TimeFormat::Create(c.time_format, &m.time_format);
  if (!s.ok()) return s;
  auto add_path = [&](const std::string& path, const char* flag, int* slot) -> Status {
    Status st = m.extractor.AddPath(path, slot, slot == &m.time_slot);
    if (!st.ok()) return Status::InvalidArgument(fmt::format("{}: {}", flag, st.message()));
    return st;
  };
  if (!(s = add_path(c.time_field, "--time", &m.time_slot)).ok()) return s;
  for (const std::string& b : c.by) {
    int slot;
    if (!(s = add_path(b, "--by", &slot)).ok()) return s;
    m.key_slots.push_back(slot);
  }
  for (const AggSpec& a : c.aggs) {
    int slot = -1;
    if (!a.field.empty() && !(s = add_path(a.field, "--agg", &slot)).ok()) return s;
    m.agg_slots.push_back(slot);
  }
  if (!(s = m.extractor.Finish()).ok()) return s;
  m.agg_inputs.assign(c.aggs.size(), ValueRef::Null());
  m.op = WindowOperator::Create(c.window, c.lateness, c.emit, WindowOperator::Deps{&m.keys, &m.acc, &m});
  *out = std::move(e);
  return Status::Ok();
}

Status Engine::Impl::Open() {
  for (const std::string& path : config.inputs) {
    std::unique_ptr<LineReader> r;
    Status s = LineReader::Open(path, config.buffer_size, &r);
    if (!s.ok()) return s;
    readers.push_back(std::move(r));
  }
  tracker = std::make_unique<WatermarkTracker>(static_cast<int>(readers.size()), config.delay);
  Status s = out.Open(config.output);
  if (s.ok() && !config.late_output.empty()) s = late_out.Open(config.late_output);
  if (s.ok() && !config.errors_output.empty()) s = errors_out.Open(config.errors_output);
  if (!s.ok()) return s;
  writer = std::make_unique<RecordWriter>(config.format, config.by, [&] {
    std::vector<std::string> n;
    for (const AggSpec& a : config.aggs) n.push_back(a.name);
    return n;
  }(), config.emit == EmitMode::kUpdate, &out);
  writer->WriteHeader();
  return Status::Ok();
}

Status Engine::Impl::BadLine(int input, const Line& line, std::string_view reason) {
  ++stats->bad_lines;
  const std::string& name = readers[input]->name();
  if (config.on_error == OnError::kFail) {
    return Status::DataError(
        fmt::format("{}:{}: {} (stopped by --on-error fail; --on-error skip counts bad lines and goes on)", name,
                    line.number, reason));
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
    fmt::format_to(std::back_inserter(*b), ",\"line\":{},\"offset\":{},\"reason\":", line.number, line.offset);
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
  fmt::format_to(std::back_inserter(*b), ",\"line\":{},\"offset\":{},\"event_time\":\"", line.number, line.offset);
  AppendRfc3339(t, b);
  b->append("\",\"watermark\":\"");
  AppendRfc3339(watermark, b);
  b->append("\",\"reason\":\"late\",\"event\":");
  b->append(line.data, line.size);
  b->append("}\n");
  late_out.MaybeFlush();
}

Status Engine::Impl::ProcessLine(int input, const Line& line) {
  ++stats->lines;
  bool blank = true;
  for (size_t i = 0; i < line.size && blank; ++i) blank = line.data[i] == ' ' || line.data[i] == '\t';
  if (blank) return Status::Ok();

  Status s = extractor.Extract(line.data, line.size, line.capacity, &values);
  if (!s.ok()) return BadLine(input, line, s.message());

  const ValueRef& tv = values[time_slot];
  Nanos t;
  switch (tv.type) {
    case ValueType::kString: s = time_format.ParseString(tv.s, &t); break;
    case ValueType::kNumber: s = time_format.ParseNumber(tv.s, &t); break;
    case ValueType::kNull:
      s = Status::DataError(fmt::format("time field \"{}\" is missing or null", config.time_field));
      break;
    default:
      s = Status::DataError(fmt::format("time field \"{}\" is a {}, not a timestamp string or epoch number",
                                        config.time_field, tv.type == ValueType::kRaw ? "JSON object or array" : "boolean"));
  }
  if (!s.ok()) return BadLine(input, line, s.message());

  key_buf.clear();
  for (int slot : key_slots) EncodeValue(values[slot], &key_buf);
  uint32_t key = keys.Intern(key_buf);
  for (size_t i = 0; i < agg_slots.size(); ++i) {
    agg_inputs[i] = agg_slots[i] < 0 ? ValueRef::Null() : values[agg_slots[i]];
  }
  ++seq;
  bool accepted = op->Add(key, t, agg_inputs.data(), seq, watermark, stats->ignored_values.data());
  keys.ReleaseIfUnused(key);
  if (!accepted) {
    // Late lines leave the fast path: check the whole line before counting or copying it.
    if (!IsValidJson(std::string_view(line.data, line.size))) return BadLine(input, line, "invalid JSON");
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
  for (const auto& r : readers) {
    p.bytes_read += r->bytes_consumed();
    p.total_bytes += r->file_size();
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
  last_progress = std::chrono::steady_clock::now();
  std::vector<bool> done(n, false);
  size_t remaining = n;
  Line line;
  while (remaining > 0) {
    // Watermark alignment: read from the unfinished input with the lowest maximum event
    // time so far; ties go to the earlier input.
    size_t pick = n;
    for (size_t i = 0; i < n; ++i) {
      if (!done[i] && (pick == n || tracker->max_time(static_cast<int>(i)) < tracker->max_time(static_cast<int>(pick)))) pick = i;
    }
    LineReader& r = *readers[pick];
    // Keep reading the picked input while it stays the lowest (always, with one input).
    while (true) {
      bool have;
      Status s = r.Next(&line, &have);
      if (!s.ok()) return s;
      if (!have) {
        done[pick] = true;
        --remaining;
        tracker->Finish(static_cast<int>(pick));
        Advance(tracker->Update());
        break;
      }
      Nanos before = tracker->max_time(static_cast<int>(pick));
      s = ProcessLine(static_cast<int>(pick), line);
      if (!s.ok()) return s;
      // Looking at the clock every 16k lines keeps progress off the hot path.
      if (progress != nullptr && ++until_progress == 16384) {
        until_progress = 0;
        ReportProgress(false);
      }
      if (n > 1 && tracker->max_time(static_cast<int>(pick)) != before) break;
    }
  }
  for (const auto& r : readers) stats->bytes_read += r->bytes_consumed();
  if (progress != nullptr) ReportProgress(true);
  return Status::Ok();
}

Status Engine::Impl::Finish() {
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
  Status s = m.Open();
  if (s.ok()) s = m.ReadAll();
  Status f = m.Finish();
  if (s.ok()) s = f;
  if (!config_.quiet) {
    if (stats_.bad_lines > 0 && config_.errors_output.empty() && config_.on_error == OnError::kSkip) {
      fmt::print(diag, "logtide: warning: {} bad line{} skipped ({} shown above); keep them all with --errors FILE\n",
                 stats_.bad_lines, stats_.bad_lines == 1 ? "" : "s", m.reported);
    }
    if (stats_.late_events > 0 && config_.late_output.empty()) {
      fmt::print(diag,
                 "logtide: warning: {} late event{} dropped; allow more disorder with --delay or --lateness, "
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

}  // namespace logtide
