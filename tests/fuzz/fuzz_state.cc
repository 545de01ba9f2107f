// Fuzz target: loading a saved state: the checkpoint components' sections and the window log's
// rows (state/checkpoint.h), as a resumed run restores them, and whole state files
// (state/state_store.h) built by real runs, then mutated.
//
// Input, either of:
//  - sections: byte 0 picks a query of state_queries.txt (modulo their number); then records,
//    each a tag byte, a u32 length (little-endian; one past the end takes what is left) and that
//    many bytes: 'c', 'i', 'w', 'I', 'o', 'W' the "counters", "inputs", "watermark",
//    "idleness", "outputs" and "windows" sections; 'r' one window-log row: u32 key length, key, value (the rest).
//  - a state file: an SQLite database ("SQLite format 3" and a 0 byte first), opened, checked
//    against each query and loaded as a run does, through the Checkpointer.
// Checked:
//  - no decoder reads outside its bytes (ASan) or trusts a length or count enough to allocate
//    without bound (libFuzzer's malloc limit); a section that does not decode is Corruption;
//  - a damaged state file is refused (Corruption, or Refused for another version or query) and
//    left as it was, byte for byte, with nothing in a write-ahead log beside it;
//  - the inputs and outputs sections decode to what their grammar comments say: written back
//    by the grammar, the same bytes;
//  - a state that loads, saved again and loaded into new components, saves to the same bytes
//    (sections and rows); the counters and the watermark too;
//  - every window row of a state that loads, and its sections saved again, have a savepoint's
//    text (state/savepoint_codec.h) that reads back as the same bytes;
//  - a state that loads can be run to the end of the input: every window fires and is written
//    as a record, and then no window state, timer, key or accumulator slot is left.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "agg/accumulators.h"
#include "agg/agg_spec.h"
#include "engine/checkpointer.h"
#include "engine/config.h"
#include "engine/counters.h"
#include "engine/result_sink.h"
#include "fuzz/check.h"
#include "input/input_set.h"
#include "keys/key_table.h"
#include "output/change_writer.h"
#include "output/output_file.h"
#include "output/output_set.h"
#include "output/record_writer.h"
#include "state/savepoint_codec.h"
#include "state/state_store.h"
#include "time/duration.h"
#include "util/bytes.h"
#include "watermark/idleness.h"
#include "watermark/watermark.h"
#include "window/window_operator.h"
#include "window/window_spec.h"

#ifndef LOGTIDE_FUZZ_QUERIES
#error "LOGTIDE_FUZZ_QUERIES must name state_queries.txt"
#endif

namespace logtide {
namespace {

// One line of state_queries.txt, parsed as the command line would be.
struct Query {
  std::string flags;
  EngineConfig config;
  std::string text;  // QueryText(config): what a state file records
};

std::vector<Query> LoadQueries() {
  std::ifstream in(LOGTIDE_FUZZ_QUERIES);
  FUZZ_CHECK(in.good(), "cannot read %s", LOGTIDE_FUZZ_QUERIES);
  std::vector<Query> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    Query q;
    q.flags = line;
    std::istringstream words(line);
    std::string flag, value;
    while (words >> flag >> value) {
      Status s;
      if (flag == "--window") {
        s = ParseWindowSpec(value, &q.config.window);
      } else if (flag == "--by") {
        for (size_t pos = 0; pos <= value.size();) {
          size_t comma = std::min(value.find(',', pos), value.size());
          q.config.by.push_back(value.substr(pos, comma - pos));
          pos = comma + 1;
        }
      } else if (flag == "--agg") {
        s = ParseAggList(value, &q.config.aggs);
      } else if (flag == "--delay") {
        s = ParseDuration(value, &q.config.delay);
      } else if (flag == "--lateness") {
        s = ParseDuration(value, &q.config.lateness);
      } else if (flag == "--emit") {
        q.config.emit = value == "update" ? EmitMode::kUpdate : EmitMode::kFinal;
      } else if (flag == "--changes" && value == "retract") {
        q.config.changes = ChangeFormat::kRetract;
      } else {
        s = Status::InvalidArgument("unknown flag " + flag);
      }
      FUZZ_CHECK(s.ok(), "%s: %s", line.c_str(), s.message().c_str());
    }
    q.text = QueryText(q.config);
    out.push_back(std::move(q));
  }
  FUZZ_CHECK(!out.empty(), "no query in %s", LOGTIDE_FUZZ_QUERIES);
  return out;
}

const std::vector<Query>& Queries() {
  static const std::vector<Query>* queries = new std::vector<Query>(LoadQueries());
  return *queries;
}

// The "inputs" and "outputs" sections written back by their grammar comments
// (input/input_set.cc, output/output_set.cc), independently of the decoders.
std::string EncodeInputs(const std::vector<InputPosition>& in) {
  std::string out;
  ByteWriter w(&out);
  w.U32(static_cast<uint32_t>(in.size()));
  for (const InputPosition& p : in) {
    w.Bytes(p.name);
    w.Bytes(p.kind);
    w.Bytes(p.fingerprint);
    w.U64(p.fingerprint_len);
    w.U64(p.offset);
    w.U64(p.line);
    w.U64(p.id);
    w.Bytes(p.tail_hash);
    w.U64(p.dev);
    w.U64(p.ino);
    w.U8(p.rotated);
    w.U64(p.size);
    w.Bytes(p.path);
  }
  return out;
}

std::string EncodeOutputs(const std::vector<OutputPosition>& in) {
  std::string out;
  ByteWriter w(&out);
  w.U32(static_cast<uint32_t>(in.size()));
  for (const OutputPosition& o : in) {
    w.Bytes(o.role);
    w.Bytes(o.path);
    w.U64(o.length);
    w.Bytes(o.absolute);
    w.Bytes(o.tail_hash);
  }
  return out;
}

// The inputs and outputs as the Checkpointer sees them, without the files a run would open:
// their sections decoded, and checked against the grammar.
class DecodedInputs final : public CheckpointComponent {
 public:
  std::string_view section() const override { return "inputs"; }
  uint32_t version() const override { return InputSet::kVersion; }
  Status Save(std::string* data) override {  // as loaded
    *data = loaded_;
    return Status::Ok();
  }
  Status Load(std::string_view data, uint32_t) override {
    std::vector<InputPosition> saved;
    if (!DecodeInputPositions(data, InputSet::kVersion, &saved))
      return Status::Corruption("it does not decode");
    FUZZ_CHECK(EncodeInputs(saved) == data, "inputs section decodes to other fields");
    loaded_.assign(data);
    return Status::Ok();
  }

 private:
  std::string loaded_;
};

class DecodedOutputs final : public CheckpointComponent {
 public:
  std::string_view section() const override { return "outputs"; }
  uint32_t version() const override { return OutputSet::kVersion; }
  Status Save(std::string* data) override {  // as loaded
    *data = loaded_;
    return Status::Ok();
  }
  Status Load(std::string_view data, uint32_t) override {
    std::vector<OutputPosition> saved;
    if (!DecodeOutputPositions(data, &saved)) return Status::Corruption("it does not decode");
    FUZZ_CHECK(EncodeOutputs(saved) == data, "outputs section decodes to other fields");
    loaded_.assign(data);
    return Status::Ok();
  }

 private:
  std::string loaded_;
};

// What a run keeps of a query's state: the components as the engine wires them
// (engine/engine.cc), records written to a buffer.
// A checkpoint component either kind (state/checkpoint.h), saved and loaded as the
// Checkpointer does.
struct Part {
  explicit Part(CheckpointComponent* c) : format(c), plain(c) {}
  explicit Part(WindowLogComponent* c) : format(c), windows(c) {}
  Status Save(std::string* data, std::vector<StateOp>* log) const {
    return plain != nullptr ? plain->Save(data) : windows->Save(data, log, true);
  }
  Status Load(std::string_view data, const WindowRows& rows) const {
    WindowRows::Reader reader(rows);
    return plain != nullptr ? plain->Load(data, format->version())
                            : windows->Load(data, format->version(), &reader);
  }
  std::string section() const { return std::string(format->section()); }
  SectionFormat* format;
  CheckpointComponent* plain = nullptr;
  WindowLogComponent* windows = nullptr;
};

struct Job {
  const EngineConfig& config;
  EngineStats stats;
  uint64_t seq = 0;
  int reported = 0;
  KeyTable keys;
  Accumulators acc;
  OutputFile out;  // never opened: records stay in its buffer
  RecordWriter writer;
  ResultSink sink;
  std::unique_ptr<WindowOperator> op;
  WatermarkTracker tracker;
  Idleness idleness;
  CountersState counters;
  DecodedInputs inputs;
  DecodedOutputs outputs;

  explicit Job(const EngineConfig& c)
      : config(c),
        acc(c.aggs),
        writer(OutputFormat::kNdjson, c.by, AggNames(c), Revised(c), &out),
        sink(&keys, &acc, &stats.windows_emitted),
        tracker(1, c.delay),
        idleness(1, c.idle_timeout, 0),
        counters(&stats, &seq, &reported) {
    stats.ignored_values.assign(c.aggs.size(), 0);
    sink.set_writer(&writer);
    out.set_gate([] { return Status::IOError("not written"); });
    op = WindowOperator::Create(
        c.window, c.lateness, c.emit, c.early,
        WindowOperator::Deps{&keys, &acc, &sink, stats.ignored_values.data(), c.by.size()});
    op->set_track_changes(true);
  }
  static std::vector<std::string> AggNames(const EngineConfig& c) {
    std::vector<std::string> names;
    for (const AggSpec& a : c.aggs) names.push_back(a.name);
    return names;
  }
  // In the engine's order of restoring; the window operator is the window log's component.
  std::vector<Part> components() {
    return {Part(&counters), Part(&inputs),  Part(&tracker),
            Part(&idleness), Part(op.get()), Part(&outputs)};
  }
};

// A state saved whole: the sections and the window log's rows, sorted by key.
struct Saved {
  std::map<std::string, std::string> sections;
  WindowRows rows;
  bool operator==(const Saved& o) const { return sections == o.sections && rows == o.rows; }
};

Saved SaveAll(Job* job) {
  Saved saved;
  std::vector<StateOp> ops;
  for (const Part& c : job->components()) {
    if (c.plain == &job->inputs || c.plain == &job->outputs) continue;  // not restored into anything
    std::string data;
    FUZZ_CHECK(c.Save(&data, &ops).ok(), "saving %s", c.section().c_str());
    saved.sections[c.section()] = data;
  }
  std::map<std::string, std::string> live;
  for (StateOp& op : ops) {
    FUZZ_CHECK(op.kind == StateOp::kPut, "a whole save writes puts only, not %d", op.kind);
    FUZZ_CHECK(live.emplace(op.key, op.value).second, "a whole save puts a row twice");
  }
  saved.rows.assign(live.begin(), live.end());
  return saved;
}

// A state that loads into one operator loads into three that hold disjoint keys (parallel
// apply's workers, each the keys of its key groups), and they save it to the same "windows"
// section and rows.
void CheckSharded(const EngineConfig& c, const Saved& first) {
  struct Shard {
    KeyTable keys;
    Accumulators acc;
    uint64_t emitted = 0;
    ResultSink sink;
    std::vector<uint64_t> ignored;
    std::unique_ptr<WindowOperator> op;
    explicit Shard(const EngineConfig& c)
        : acc(c.aggs), sink(&keys, &acc, &emitted), ignored(c.aggs.size(), 0) {
      op = WindowOperator::Create(
          c.window, c.lateness, c.emit, c.early,
          WindowOperator::Deps{&keys, &acc, &sink, ignored.data(), c.by.size()});
      op->set_track_changes(true);
    }
  };
  Shard keyless(c);
  std::vector<std::unique_ptr<Shard>> shards;
  std::vector<WindowOperator*> ops;
  for (int i = 0; i < 3; ++i) {
    shards.push_back(std::make_unique<Shard>(c));
    ops.push_back(shards.back()->op.get());
  }
  const std::string& section = first.sections.at(std::string(keyless.op->section()));
  WindowRows::Reader reader(first.rows);
  const Status s = keyless.op->LoadShards(ops, section, keyless.op->version(), &reader);
  FUZZ_CHECK(s.ok(), "a state that loads into one operator does not load into three: %s",
             s.message().c_str());
  std::string data;
  std::vector<StateOp> log;
  FUZZ_CHECK(keyless.op->SaveShards(ops, &data, &log, true).ok(), "saving three operators");
  FUZZ_CHECK(data == section, "three operators save another windows section than one");
  std::map<std::string, std::string> live;
  for (StateOp& op : log) {
    FUZZ_CHECK(op.kind == StateOp::kPut, "a whole save writes puts only, not %d", op.kind);
    FUZZ_CHECK(live.emplace(op.key, op.value).second, "three operators put a row twice");
  }
  FUZZ_CHECK(WindowRows(live.begin(), live.end()) == first.rows,
             "three operators save other rows than one");
}

// `bytes` described by `describe` are text (state/savepoint_codec.h) that reads back as them.
template <class Describe>
void CheckAsText(std::string_view bytes, Describe describe, const char* what) {
  std::string json;
  JsonFromBytes out(bytes, &json);
  describe(&out);
  Status s = out.Finish();
  auto hex = [](std::string_view b) {
    std::string h;
    for (unsigned char ch : b) h += fmt::format("{:02x}", ch);
    return h;
  };
  FUZZ_CHECK(s.ok(), "%s of a state that loads has no savepoint text: %s (%s)", what,
             s.message().c_str(), hex(bytes).c_str());
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  FUZZ_CHECK(!parser.parse(json).get(obj), "%s: its savepoint text is not JSON: %s", what,
             json.c_str());
  std::string again;
  BytesFromJson in(obj, &again);
  describe(&in);
  s = in.Finish();
  FUZZ_CHECK(s.ok() && again == bytes, "%s: its savepoint text %s does not read back (%s): %s, not %s",
             what, json.c_str(), s.message().c_str(), hex(again).c_str(), hex(bytes).c_str());
}

// The sections a state that loads saves again, of this logtide's versions, are text too.
void CheckSectionsAsText(const EngineConfig& c, const Saved& saved) {
  CheckAsText(saved.sections.at("counters"), CountersState::DescribeSection, "the counters");
  CheckAsText(saved.sections.at("watermark"), WatermarkTracker::DescribeSection, "the watermark");
  CheckAsText(saved.sections.at("idleness"), Idleness::DescribeSection, "the idleness");
  const bool session = c.window.is_session();
  CheckAsText(saved.sections.at("windows"),
              [&](StateCodec* codec) { WindowOperator::DescribeSection(session, codec); },
              "the windows section");
}

// Every row of a state that loads is one a savepoint writes as text and reads back.
void CheckRowsAsText(const EngineConfig& c, const WindowRows& rows) {
  Accumulators acc(c.aggs);
  const WindowRowForm form{c.window.is_session(),
                           c.emit == EmitMode::kUpdate || c.early > 0 || c.early_every > 0, &acc,
                           &c.aggs};
  for (const auto& [key, value] : rows) {
    CheckAsText(key, [&](StateCodec* codec) { DescribeWindowRowKey(form, codec); }, "a row's key");
    CheckAsText(value, [&](StateCodec* codec) { DescribeWindowRowValue(form, codec); },
                "a row's value");
  }
}

// Checks what a state that loaded into `job` promises: saved again it loads into new components
// (and into three operators that hold disjoint keys) and saves to the same bytes; run to the
// end of the input, it leaves nothing behind.
void CheckLoaded(Job* job) {
  const Saved first = SaveAll(job);
  CheckSharded(job->config, first);
  CheckRowsAsText(job->config, first.rows);
  CheckSectionsAsText(job->config, first);
  // The inputs and outputs, which nothing here restores (their stand-ins keep the bytes
  // loaded), are text too.
  for (const auto& [part, describe] :
       {std::pair<CheckpointComponent*, void (*)(StateCodec*)>{&job->inputs, InputSet::DescribeSection},
        {&job->outputs, OutputSet::DescribeSection}}) {
    std::string data;
    FUZZ_CHECK(part->Save(&data).ok(), "saving %s", std::string(part->section()).c_str());
    CheckAsText(data, describe, "an inputs or outputs section");
  }
  Job again(job->config);
  for (const Part& c : again.components()) {
    if (c.plain == &again.inputs || c.plain == &again.outputs) continue;
    const Status s = c.Load(first.sections.at(c.section()), first.rows);
    FUZZ_CHECK(s.ok(), "the %s section saved from a loaded state does not load: %s",
               c.section().c_str(), s.message().c_str());
  }
  FUZZ_CHECK(SaveAll(&again) == first, "a loaded state saves to other bytes the second time");

  // The end of the input: every window fires, all state goes.
  const uint64_t emitted_before = job->stats.windows_emitted;
  job->op->OnWatermark(kPlusInfinity);
  FUZZ_CHECK(job->op->open_entries() == 0, "%zu window states left at the end",
             job->op->open_entries());
  FUZZ_CHECK(job->op->pending_timers() == 0, "%zu timers left at the end",
             job->op->pending_timers());
  FUZZ_CHECK(job->acc.live() == 0, "%zu accumulator slots left at the end", job->acc.live());
  FUZZ_CHECK(job->keys.size() == 0, "%zu keys left at the end", job->keys.size());
  const std::string& records = *job->out.buffer();
  const uint64_t emitted = job->stats.windows_emitted - emitted_before;
  FUZZ_CHECK(static_cast<uint64_t>(std::count(records.begin(), records.end(), '\n')) >= emitted,
             "%llu windows emitted, fewer records", static_cast<unsigned long long>(emitted));
}

// ---- sections ----

void FuzzSections(const uint8_t* data, size_t size) {
  if (size == 0) return;
  const std::vector<Query>& queries = Queries();
  const Query& q = queries[data[0] % queries.size()];
  std::map<char, std::string> sections;
  std::map<std::string, std::string> rows;  // as the store replays its log: the last put wins
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  while (in.size() >= 5) {
    const char tag = in[0];
    uint32_t n;
    std::memcpy(&n, in.data() + 1, 4);
    in.remove_prefix(5);
    const std::string_view body = in.substr(0, n);
    in.remove_prefix(body.size());
    if (tag == 'r') {
      if (body.size() < 4) continue;
      uint32_t k;
      std::memcpy(&k, body.data(), 4);
      const std::string_view rest = body.substr(4);
      const std::string_view key = rest.substr(0, k);
      rows[std::string(key)] = std::string(rest.substr(key.size()));
    } else {
      sections[tag] = std::string(body);
    }
  }
  const WindowRows window_rows(rows.begin(), rows.end());

  // A --changes section that loads (the query's keys, NDJSON or CSV as its first byte says)
  // saves to the same bytes, and to text that reads back as them.
  if (sections.count('C') != 0) {
    const std::string_view changes = sections['C'];
    const OutputFormat format =
        !changes.empty() && changes[0] % 2 != 0 ? OutputFormat::kCsv : OutputFormat::kNdjson;
    ChangeWriter writer(ChangeFormat::kRetract, format, q.config.window.is_session(),
                        q.config.by.size());
    const std::string_view data = changes.empty() ? changes : changes.substr(1);
    const Status s = writer.Load(data, ChangeWriter::kVersion);
    FUZZ_CHECK(s.ok() || s.code() == Status::Code::kCorruption, "the changes section: %s",
               s.message().c_str());
    if (s.ok()) {
      // (Saved in key order: the bytes loaded may have had another.)
      std::string saved, again;
      FUZZ_CHECK(writer.Save(&saved).ok(), "saving a changes section that loads");
      ChangeWriter reloaded(ChangeFormat::kRetract, format, q.config.window.is_session(),
                            q.config.by.size());
      FUZZ_CHECK(reloaded.Load(saved, ChangeWriter::kVersion).ok() && reloaded.Save(&again).ok() &&
                     again == saved,
                 "a changes section saved from one that loads does not load to the same bytes");
      CheckAsText(saved, [&](StateCodec* c) { ChangeWriter::DescribeSection(format, c); },
                  "the changes section");
    }
  }
  Job job(q.config);
  const std::pair<char, Part> order[] = {{'c', Part(&job.counters)},
                                         {'i', Part(&job.inputs)},
                                         {'w', Part(&job.tracker)},
                                         {'I', Part(&job.idleness)},
                                         {'W', Part(job.op.get())},
                                         {'o', Part(&job.outputs)}};
  for (const auto& [tag, c] : order) {
    const Status s = c.Load(sections[tag], window_rows);
    if (!s.ok()) {
      FUZZ_CHECK(s.code() == Status::Code::kCorruption, "the %s section: %s (code %d)",
                 c.section().c_str(), s.message().c_str(), static_cast<int>(s.code()));
      return;
    }
  }
  CheckLoaded(&job);

}

// ---- state files ----

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A folder of this process's own for the state file, in $TMPDIR, else in memory (/dev/shm),
// else /tmp; removed at exit.
const std::string& ScratchDir() {
  static const std::string* dir = [] {
    const char* base = std::getenv("TMPDIR");
    if (base == nullptr || *base == '\0')
      base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    std::string templ = std::string(base) + "/logtide-fuzz-XXXXXX";
    FUZZ_CHECK(mkdtemp(templ.data()) != nullptr, "cannot make a folder in %s", base);
    std::atexit([] {
      for (const char* name : {"/state.db", "/state.db-wal", "/state.db-shm", "/state.db-journal"})
        ::unlink((ScratchDir() + name).c_str());
      ::rmdir(ScratchDir().c_str());
    });
    return new std::string(templ);
  }();
  return *dir;
}

void FuzzStateFile(const uint8_t* data, size_t size) {
  const std::string path = ScratchDir() + "/state.db";
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) ::unlink((path + suffix).c_str());
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  Status s;
  bool loaded = false;
  {
    std::unique_ptr<StateStore> store;
    s = StateStore::Open(path, false, &store);
    if (s.ok() && !store->is_new()) {
      // Whichever query the file holds: a run with another is refused, reading nothing more.
      for (const Query& q : Queries()) {
        s = store->CheckQuery(q.text);
        if (!s.ok()) continue;
        Checkpoint cp;
        s = store->Load(&cp);
        if (!s.ok()) break;
        Job job(q.config);
        Checkpointer checkpointer(store.get());
        for (const Part& c : job.components()) {
          if (c.plain != nullptr) {
            checkpointer.Add(c.plain);
          } else {
            checkpointer.Add(c.windows);
          }
        }
        s = checkpointer.Restore(cp);
        if (s.ok() && job.op->watermark() != job.tracker.current()) break;  // as the engine
        if (s.ok()) {
          loaded = true;
          CheckLoaded(&job);
        }
        break;
      }
    }
  }
  if (!s.ok()) {
    FUZZ_CHECK(s.code() == Status::Code::kCorruption || s.code() == Status::Code::kRefused,
               "a damaged state file gives code %d: %s", static_cast<int>(s.code()),
               s.message().c_str());
  }
  if (!loaded) {
    FUZZ_CHECK(ReadFile(path) == std::string_view(reinterpret_cast<const char*>(data), size),
               "a state file that was not loaded was changed (%s)", s.message().c_str());
    FUZZ_CHECK(ReadFile(path + "-wal").empty(),
               "a state file that was not loaded was changed in its write-ahead log (%s)",
               s.message().c_str());
  }
}

}  // namespace
}  // namespace logtide

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char kSqlite[] = "SQLite format 3";  // and its terminating 0
  if (size >= sizeof kSqlite && std::memcmp(data, kSqlite, sizeof kSqlite) == 0) {
    logtide::FuzzStateFile(data, size);
  } else {
    logtide::FuzzSections(data, size);
  }
  return 0;
}
