#include "state/state_store.h"

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>

namespace logtide {
namespace {

// Load and then the live rows, as a resumed run reads them (into *windows, when given).
Status LoadAll(StateStore* st, Checkpoint* c, WindowRows* windows = nullptr) {
  Status s = st->Load(c);
  if (!s.ok()) return s;
  LiveRows* rows = st->live_rows();
  for (RowSource::Row row; rows->Next(&row);) {
    if (windows != nullptr) windows->Add(row.first, row.second);
  }
  c->window_log_rows = st->log_rows();
  return rows->status();
}

std::string TempPath() {
  char name[] = "/tmp/logtide_state_XXXXXX";
  int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  close(fd);
  std::remove(name);  // StateStore creates it
  return name;
}

void Cleanup(const std::string& p) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((p + suffix).c_str());
}

// The window log's replay against a model: random puts, erases and erases of a prefix over
// a few keys (so that keys repeat, are erased and put again, and prefixes cover several),
// committed over several checkpoints, some compacting; after each, Load gives the rows a map
// that applies every change in order holds, by key.
TEST_CASE("the window log replays random changes to the rows a map applying them holds") {
  std::mt19937 rng(29);
  const auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const auto some_key = [&](int len) {
    std::string k;
    for (int i = 0; i < len; ++i) k += static_cast<char>('a' + pick(3));
    return k;
  };
  for (int trial = 0; trial < 20; ++trial) {
    std::string path = TempPath();
    std::map<std::string, std::string> model;
    {
      std::unique_ptr<StateStore> st;
      REQUIRE(StateStore::Open(path, false, &st).ok());
      REQUIRE(st->CheckQuery("q").ok());
      for (int cp = 1; cp <= 6; ++cp) {
        Checkpoint c;
        c.checkpoints = static_cast<uint64_t>(cp);
        c.sections.push_back(Section{"s", 1, "x"});
        c.compact = cp > 1 && pick(4) == 0;
        if (c.compact) {
          for (const auto& [k, v] : model) c.window_ops.push_back({StateOp::kPut, k, v});
        }
        for (int i = 0; i < 40; ++i) {
          const int what = pick(10);
          if (what < 6) {
            StateOp op{StateOp::kPut, some_key(3), std::to_string(rng() % 1000)};
            model[op.key] = op.value;
            c.window_ops.push_back(op);
          } else if (what < 9) {
            StateOp op{StateOp::kErase, some_key(3), ""};
            model.erase(op.key);
            c.window_ops.push_back(op);
          } else {
            StateOp op{StateOp::kErasePrefix, some_key(1 + pick(2)), ""};
            for (auto it = model.lower_bound(op.key);
                 it != model.end() && it->first.compare(0, op.key.size(), op.key) == 0;)
              it = model.erase(it);
            c.window_ops.push_back(op);
          }
        }
        REQUIRE(st->Commit(c).ok());
      }
    }
    std::unique_ptr<StateStore> st;
    REQUIRE(StateStore::Open(path, false, &st).ok());
    REQUIRE(st->CheckQuery("q").ok());
    Checkpoint c;
    WindowRows windows;
    REQUIRE(LoadAll(st.get(), &c, &windows).ok());
    CHECK(windows == model);
    Cleanup(path);
  }
}

size_t OpenFiles() {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) n += e.exists() ? 1 : 0;
  return n;
}

TEST_CASE("a store loaded and closed before its live rows were read leaves no file open") {
  const std::string path = TempPath();
  {
    std::unique_ptr<StateStore> st;
    REQUIRE(StateStore::Open(path, false, &st).ok());
    REQUIRE(st->CheckQuery("q").ok());
    Checkpoint c;
    c.checkpoints = 1;
    c.window_ops = {{StateOp::kPut, "a", "1"}, {StateOp::kPut, "b", "2"}};
    REQUIRE(st->Commit(c).ok());
  }
  const size_t before = OpenFiles();
  for (int i = 0; i < 5; ++i) {
    std::unique_ptr<StateStore> st;
    REQUIRE(StateStore::Open(path, false, &st).ok());
    Checkpoint c;
    REQUIRE(st->Load(&c).ok());  // a resume refused before the rows (other outputs, say)
  }
  CHECK(OpenFiles() == before);
  Cleanup(path);
}

TEST_CASE("a checkpoint round-trips, and the window log replays to the live rows") {
  std::string path = TempPath();
  {
    std::unique_ptr<StateStore> st;
    REQUIRE(StateStore::Open(path, false, &st).ok());
    CHECK(st->is_new());
    REQUIRE(st->CheckQuery("window=tumbling:1m\nby=a").ok());
    Checkpoint c;
    c.sections.push_back(Section{"counters", 3, std::string("\0counters\xff", 10)});
    c.sections.push_back(Section{"inputs", 1, "positions"});
    c.info.emplace_back("watermark", "null");
    c.window_ops = {
        {StateOp::kPut, "p1a", "1"}, {StateOp::kPut, "p1b", "2"}, {StateOp::kPut, "p2a", "3"}};
    REQUIRE(st->Commit(c).ok());
    c.window_ops = {{StateOp::kPut, "p1a", "4"},
                    {StateOp::kErasePrefix, "p2", ""},
                    {StateOp::kErase, "p1b", ""},
                    {StateOp::kPut, "p3", "5"}};
    c.checkpoints = 2;
    c.sections[1].data = "later positions";
    REQUIRE(st->Commit(c).ok());
  }
  std::unique_ptr<StateStore> st;
  REQUIRE(StateStore::Open(path, false, &st).ok());
  CHECK_FALSE(st->is_new());
  REQUIRE(st->CheckQuery("window=tumbling:1m\nby=a").ok());
  Checkpoint c;
  WindowRows windows;
  REQUIRE(LoadAll(st.get(), &c, &windows).ok());
  CHECK(c.checkpoints == 2);
  REQUIRE(c.sections.size() == 2);
  REQUIRE(c.Find("counters") != nullptr);
  CHECK(c.Find("counters")->version == 3);
  CHECK(c.Find("counters")->data == std::string("\0counters\xff", 10));
  REQUIRE(c.Find("inputs") != nullptr);
  CHECK(c.Find("inputs")->data == "later positions");
  CHECK(c.Find("outputs") == nullptr);
  CHECK(c.info == std::vector<std::pair<std::string, std::string>>{{"watermark", "null"}});
  CHECK(windows == std::vector<std::pair<std::string, std::string>>{{"p1a", "4"}, {"p3", "5"}});
  CHECK(c.window_log_rows == 7);

  // Another query is refused, naming what differs.
  Status s = st->CheckQuery("window=tumbling:5m\nby=a");
  CHECK(s.code() == Status::Code::kRefused);
  CHECK_THAT(
      s.message(),
      Catch::Contains("window: the state has \"tumbling:1m\", this run has \"tumbling:5m\""));

  // Read gives the same checkpoint without the lock (the store above still holds it): the live
  // rows and what the log holds.
  std::string query;
  Checkpoint read;
  WindowRows rows;
  REQUIRE(StateStore::Read(path, &query, &read, [&](RowSource::Row row) {
            rows.Add(row.first, row.second);
          }).ok());
  CHECK(query == "window=tumbling:1m\nby=a");
  CHECK(read.checkpoints == 2);
  CHECK(read.sections.size() == 2);
  CHECK(rows == std::vector<std::pair<std::string, std::string>>{{"p1a", "4"}, {"p3", "5"}});
  CHECK(read.window_log_rows == 7);
  CHECK(read.window_log_bytes == 3 + 1 + 3 + 1 + 3 + 1 + 3 + 1 + 2 + 3 + 2 + 1);
  CHECK(read.file.pages > 0);
  CHECK(read.binding.bound);

  // A second open while the first holds the lock.
  std::unique_ptr<StateStore> second;
  CHECK(StateStore::Open(path, false, &second).code() == Status::Code::kBusy);
  st.reset();
  Cleanup(path);
}

TEST_CASE("a compaction returns the old log's pages to the file system") {
  std::string path = TempPath();
  std::unique_ptr<StateStore> st;
  REQUIRE(StateStore::Open(path, false, &st).ok());
  REQUIRE(st->CheckQuery("window=tumbling:1m").ok());
  Checkpoint c;
  c.sections.push_back(Section{"windows", 3, "meta"});
  for (int i = 0; i < 2000; ++i)
    c.window_ops.push_back({StateOp::kPut, "key" + std::to_string(i), std::string(500, 'v')});
  REQUIRE(st->Commit(c).ok());
  std::string query;
  Checkpoint grown;
  REQUIRE(StateStore::Read(path, &query, &grown, [](RowSource::Row) {}).ok());
  CHECK(grown.window_log_rows == 2000);
  CHECK(grown.file.reclaims);
  CHECK(grown.file.pages > 250);  // 1 MB of rows

  c.compact = true;
  c.window_ops = {{StateOp::kPut, "key7", "live"}};
  REQUIRE(st->Commit(c).ok());
  Checkpoint compacted;
  REQUIRE(StateStore::Read(path, &query, &compacted, [](RowSource::Row) {}).ok());
  CHECK(compacted.window_log_rows == 1);
  CHECK(compacted.window_log_bytes == 8);  // "key7" and "live"
  CHECK(compacted.file.free_pages == 0);
  CHECK(compacted.file.pages < 10);
  CHECK(compacted.file.page_size * compacted.file.pages >= 4096);
  st.reset();  // closing copies the WAL into the file, which shrinks
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  CHECK(static_cast<uint64_t>(f.tellg()) == compacted.file.page_size * compacted.file.pages);
  Cleanup(path);
}

TEST_CASE("a file that is not a state is refused and left alone") {
  std::string path = TempPath();
  std::ofstream(path) << "hello, not a database\n";
  std::unique_ptr<StateStore> st;
  Status s = StateStore::Open(path, false, &st);
  CHECK(s.code() == Status::Code::kCorruption);
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  CHECK(line == "hello, not a database");
  Cleanup(path);
}

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A state with one checkpoint of query "window=tumbling:1m", closed.
void MakeState(const std::string& path) {
  std::unique_ptr<StateStore> st;
  REQUIRE(StateStore::Open(path, false, &st).ok());
  REQUIRE(st->CheckQuery("window=tumbling:1m").ok());
  Checkpoint c;
  c.sections.push_back(Section{"counters", 1, "x"});
  c.window_ops = {{StateOp::kPut, "k", "v"}};
  REQUIRE(st->Commit(c).ok());
}

// A state that lost its query row (an edit SQLite's integrity check cannot see) used to take
// the query of the next run, in its write-ahead log, and resume the first query's windows
// under it: wrong numbers, exit 0 (found writing tests/fuzz/fuzz_state.cc).
TEST_CASE("a state that lost its query is damaged and left as it was (issue 16)") {
  std::string path = TempPath();
  MakeState(path);
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, "DELETE FROM meta WHERE key = 'query'", nullptr, nullptr, nullptr) ==
          SQLITE_OK);
  REQUIRE(sqlite3_close(db) == SQLITE_OK);
  const std::string before = FileBytes(path);
  {
    std::unique_ptr<StateStore> st;
    REQUIRE(StateStore::Open(path, false, &st).ok());
    CHECK_FALSE(st->is_new());
    Status s = st->CheckQuery("window=tumbling:2m");
    CHECK(s.code() == Status::Code::kCorruption);
    CHECK_THAT(s.message(), Catch::Contains("no query"));
  }
  // Nothing written: not the file, nor a write-ahead log beside it.
  CHECK(FileBytes(path) == before);
  CHECK(FileBytes(path + "-wal").empty());
  Cleanup(path);
}

// The header's schema format number (offset 44, big-endian; SQLite writes 4) damaged: SQLite
// cannot read the schema, which used to be an I/O error (exit 1), not a damaged state (exit 5).
TEST_CASE("a state whose schema format is damaged is refused as damaged (issue 16)") {
  std::string path = TempPath();
  MakeState(path);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(47);
    f.put('\x05');
  }
  const std::string before = FileBytes(path);
  std::unique_ptr<StateStore> st;
  Status s = StateStore::Open(path, false, &st);
  CHECK(s.code() == Status::Code::kCorruption);
  CHECK_THAT(s.message(), Catch::Contains("damaged"));
  CHECK(FileBytes(path) == before);
  Cleanup(path);
}

// A state whose header says it has no write-ahead log (bytes 18 and 19, 2 in logtide's files,
// set to 1) and whose rows are damaged: refused, and left as it was. Opening it used to turn
// the log back on, rewriting three bytes of the header of a file it then called unchanged
// (found by tests/fuzz/fuzz_state.cc).
TEST_CASE("a damaged state without its write-ahead log keeps its header (issue 16)") {
  std::string path = TempPath();
  MakeState(path);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(18);
    f.put('\x01');
    f.put('\x01');
  }
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, "UPDATE meta SET sum = sum + 1 WHERE key = 'finished'", nullptr, nullptr,
                       nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_close(db) == SQLITE_OK);
  const std::string before = FileBytes(path);
  REQUIRE(before.substr(18, 2) == "\x01\x01");
  {
    std::unique_ptr<StateStore> st;
    REQUIRE(StateStore::Open(path, false, &st).ok());
    REQUIRE(st->CheckQuery("window=tumbling:1m").ok());
    Checkpoint c;
    Status s = LoadAll(st.get(), &c);
    CHECK(s.code() == Status::Code::kCorruption);
    CHECK_THAT(s.message(), Catch::Contains("checksum"));
  }
  CHECK(FileBytes(path) == before);
  CHECK(FileBytes(path + "-wal").empty());
  Cleanup(path);
}

// Issue 28: every row's own checksum held, so rows and sections deleted, moved, or taken from
// another checkpoint or another job (a torn backup copy) loaded as one state and resumed into
// wrong records with exit 0. The checkpoint's binding refuses each such mix.

// Commits checkpoint n of a small job with `ops` appended and the "inputs" section `inputs`.
void CommitStep(const std::string& path, uint64_t n, std::vector<StateOp> ops,
                const std::string& inputs) {
  std::unique_ptr<StateStore> st;
  REQUIRE(StateStore::Open(path, false, &st).ok());
  REQUIRE(st->CheckQuery("window=tumbling:1m").ok());
  Checkpoint c;
  if (!st->is_new()) REQUIRE(LoadAll(st.get(), &c).ok());
  c = Checkpoint();
  c.checkpoints = n;
  c.sections = {Section{"counters", 1, "c"}, Section{"inputs", 1, inputs}};
  c.window_ops = std::move(ops);
  REQUIRE(st->Commit(c).ok());
}

// Runs `sql` on the state at `path` (with the file `donor` attached as d, when given).
void Edit(const std::string& path, const std::string& sql, const std::string& donor = "") {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  std::string all = donor.empty() ? sql : "ATTACH '" + donor + "' AS d; " + sql;
  CHECK(sqlite3_exec(db, all.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_close(db) == SQLITE_OK);
}

// Loads the state at `path`; returns the status, and checks the file was not changed.
Status LoadUnchanged(const std::string& path) {
  const std::string before = FileBytes(path);
  Status s;
  {
    std::unique_ptr<StateStore> st;
    s = StateStore::Open(path, false, &st);
    if (s.ok()) s = st->CheckQuery("window=tumbling:1m");
    Checkpoint c;
    if (s.ok()) s = LoadAll(st.get(), &c);
  }
  CHECK(FileBytes(path) == before);
  return s;
}

void CopyFile(const std::string& from, const std::string& to) {
  std::ofstream(to, std::ios::binary) << FileBytes(from);
}

TEST_CASE("window rows deleted or moved are refused though each row's sum holds (issue 28)") {
  std::string path = TempPath(), good = TempPath();
  CommitStep(good, 1, {{StateOp::kPut, "a", "1"}, {StateOp::kPut, "b", "2"}}, "i1");
  CommitStep(good, 2, {{StateOp::kPut, "a", "3"}, {StateOp::kErase, "b", ""}}, "i2");
  REQUIRE(LoadUnchanged(good).ok());
  for (const char* sql :
       {"DELETE FROM window_log WHERE id = (SELECT min(id) FROM window_log)",
        "DELETE FROM window_log WHERE id = (SELECT max(id) FROM window_log)",
        "DELETE FROM window_log", "UPDATE window_log SET id = -id",
        "UPDATE window_log SET id = 9 WHERE id = 1; UPDATE window_log SET id = 1 WHERE id = 3; "
        "UPDATE window_log SET id = 3 WHERE id = 9",
        "INSERT INTO window_log(op, k, v, sum) SELECT op, k, v, sum FROM window_log WHERE id = 1"}) {
    INFO(sql);
    CopyFile(good, path);
    Edit(path, sql);
    Status s = LoadUnchanged(path);
    CHECK(s.code() == Status::Code::kCorruption);
    CHECK_THAT(s.message(), Catch::Contains("its window rows do not match its last checkpoint"));
  }
  Cleanup(path);
  Cleanup(good);
}

TEST_CASE("rows and sections of an older checkpoint or another job are refused (issue 28)") {
  std::string path = TempPath(), good = TempPath(), older = TempPath(), other = TempPath();
  CommitStep(good, 1, {{StateOp::kPut, "a", "1"}}, "i1");
  CopyFile(good, older);
  CommitStep(good, 2, {{StateOp::kPut, "a", "2"}}, "i2");
  // Another job with the same query, the same first checkpoint and another second one.
  CommitStep(other, 1, {{StateOp::kPut, "a", "1"}}, "i1");
  CommitStep(other, 2, {{StateOp::kPut, "a", "5"}}, "j2");
  REQUIRE(LoadUnchanged(other).ok());
  struct Case {
    const char* sql;
    const char* says;
  };
  for (const std::string& donor : {older, other}) {
    for (const Case& c : {
             Case{"DELETE FROM window_log; INSERT INTO window_log SELECT * FROM d.window_log",
                  "window rows"},
             Case{"DELETE FROM sections WHERE name = 'inputs'; INSERT INTO sections SELECT * FROM "
                  "d.sections WHERE name = 'inputs'",
                  "sections"},
             Case{"DELETE FROM meta WHERE key = 'binding'; INSERT INTO meta SELECT * FROM d.meta "
                  "WHERE key = 'binding'",
                  "do not match"},
         }) {
      INFO(donor << ": " << c.sql);
      CopyFile(good, path);
      Edit(path, c.sql, donor);
      Status s = LoadUnchanged(path);
      CHECK(s.code() == Status::Code::kCorruption);
      CHECK_THAT(s.message(), Catch::Contains(c.says));
    }
  }
  Cleanup(path);
  Cleanup(good);
  Cleanup(older);
  Cleanup(other);
}

TEST_CASE("a format 2 state loads as it is and is bound at its next checkpoint (issue 28)") {
  std::string path = TempPath();
  CommitStep(path, 1, {{StateOp::kPut, "a", "1"}, {StateOp::kPut, "b", "2"}}, "i1");
  // What logtide before the binding wrote: no binding row, user_version 2.
  Edit(path, "DELETE FROM meta WHERE key = 'binding'; PRAGMA user_version = 2");
  REQUIRE(LoadUnchanged(path).ok());
  CommitStep(path, 2, {{StateOp::kPut, "a", "3"}}, "i2");
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(q) == SQLITE_ROW);
  CHECK(sqlite3_column_int(q, 0) == 3);
  sqlite3_finalize(q);
  REQUIRE(sqlite3_close(db) == SQLITE_OK);
  REQUIRE(LoadUnchanged(path).ok());
  // Bound now: its first row deleted is refused.
  Edit(path, "DELETE FROM window_log WHERE id = 1");
  CHECK(LoadUnchanged(path).code() == Status::Code::kCorruption);
  Cleanup(path);
}

TEST_CASE("a bound state that lost its binding, or from a newer logtide, is refused (issue 28)") {
  std::string path = TempPath();
  CommitStep(path, 1, {{StateOp::kPut, "a", "1"}}, "i1");
  const std::string good = FileBytes(path);
  Edit(path, "DELETE FROM meta WHERE key = 'binding'");
  Status s = LoadUnchanged(path);
  CHECK(s.code() == Status::Code::kCorruption);
  CHECK_THAT(s.message(), Catch::Contains("binding is missing"));
  std::ofstream(path, std::ios::binary) << good;
  Edit(path, "PRAGMA user_version = 4");
  s = LoadUnchanged(path);
  CHECK(s.code() == Status::Code::kRefused);
  CHECK_THAT(s.message(), Catch::Contains("a newer version of logtide"));
  Cleanup(path);
}

}  // namespace
}  // namespace logtide
