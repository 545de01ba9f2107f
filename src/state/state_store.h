// The checkpoint store: one SQLite database per job (--state FILE). It holds the query, one
// section per checkpoint component (state/checkpoint.h) and the window log, and replaces them
// all in one transaction per checkpoint. It is the only user of sqlite3.h.
//
// Schema (PRAGMA user_version = 3, application_id = 0x4C544944 "LTID"):
//   meta(key TEXT PRIMARY KEY, value BLOB, sum INT)
//                                               query, finished, checkpoints, info.NAME,
//                                               binding (its grammar in state_store.cc)
//   sections(name TEXT PRIMARY KEY, version INT, data BLOB, sum INT)
//                                               one per component: "counters", "watermark",
//                                               "inputs", "outputs", "windows"
//   window_log(id INTEGER PRIMARY KEY, op INT, k BLOB, v BLOB, sum INT)
//                                               open window state as a log of changes (op 0 put
//                                               k=v, 1 erase k, 2 erase keys starting with k):
//                                               each checkpoint appends only what changed, so it
//                                               writes pages in proportion to the changes;
//                                               replayed on load (later ids win; LiveRows),
//                                               and rewritten whole (compacted) when it
//                                               outgrows the state
// A new file is created with PRAGMA auto_vacuum = INCREMENTAL (before its first table): the
// pages a compaction frees are returned to the file system in the compaction's transaction
// (PRAGMA incremental_vacuum), so the file shrinks with the log instead of keeping its largest
// size. A file created without it (by logtide before this was so) reads the same; it is
// converted once, by a VACUUM right after its first compaction.
// Every row's `sum` is the XXH64 of its other fields (each with its length), checked on load:
// a row that fails it makes the state damaged (Corruption), never misread.
// The binding ties the rows to their checkpoint: the job's random id, the checkpoint's number,
// and the count and digest of the sections and of the window log's rows (each row by its id),
// recomputed on load. Rows or sections deleted, added, reordered, or taken from another
// checkpoint or another job (a torn backup copy) make the state damaged (Corruption) though
// each row's sum is right. Each checkpoint updates the log's digest with the rows it appends
// only, so binding costs in proportion to the changes.
// Version 2 (logtide before the binding) is read as it is and becomes version 3, bound, at its
// next checkpoint, in that checkpoint's transaction; a version 3 file is refused by the
// logtide before it as a newer one.
// Version 1 (logtide before the checkpoint components) kept the engine's state in one meta
// blob and the positions in tables of their own; it is refused with a message that says so.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "state/checkpoint.h"
#include "util/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace logtide {

// The state file's pages, for `logtide inspect`.
struct StateFileStats {
  uint64_t page_size = 0;
  uint64_t pages = 0;       // the database's size as of the last commit (its file, or the WAL)
  uint64_t free_pages = 0;  // pages on the free list: reused before the file grows
  bool reclaims = false;    // incremental auto-vacuum: compactions shrink the file
};

// The state file's format and its last checkpoint's binding, for `logtide inspect`: Read has
// checked it against every row (a mismatch is Corruption).
struct StateBinding {
  int format = 0;      // PRAGMA user_version: 3, or 2 (before the binding)
  bool bound = false;  // format 3 with a checkpoint
  uint64_t job = 0;    // the job's random id, when bound
  uint64_t sections = 0;
};

struct Checkpoint {
  std::vector<Section> sections;
  // Readable facts for `logtide inspect`: name and JSON value ("watermark", "open_windows", ...).
  std::vector<std::pair<std::string, std::string>> info;
  bool finished = false;  // a run without --hold reached the end of its input
  uint64_t checkpoints = 0;
  std::vector<StateOp> window_ops;  // Commit: appended to the window log
  bool compact = false;             // Commit: window_ops is the whole state; drop the old log
  uint64_t window_log_rows = 0;     // Read: rows in the log
  uint64_t window_log_bytes = 0;    // Read: bytes of the log's keys and values
  StateFileStats file;              // Read
  StateBinding binding;             // Read

  // Returns the section named `name`, or nullptr.
  const Section* Find(std::string_view name) const {
    for (const Section& s : sections) {
      if (s.name == name) return &s;
    }
    return nullptr;
  }
};

class StateStore;

// The window log's live rows, by key, read from the state file as the window operator restores
// them (StateStore::Load prepares it): SQLite sorts the log by key and id (spilling to a
// temporary file in SQLITE_TMPDIR or TMPDIR when it is large), and each key's changes are
// replayed as they come, so a resumed run never holds the rows of a large state beside the
// windows restored from them. Every row's sum is checked as it is read, and at the end the
// number of rows and their digest against the last checkpoint's binding.
class LiveRows final : public RowSource {
 public:
  ~LiveRows();
  bool Next(Row* row) override;
  // Reads the rows not yet read, so that status() covers the whole log.
  void Drain();
  // Ok when every row was read and the log matches its checkpoint; else why not
  // (Corruption: a damaged or edited file; IOError: no room for the sort's temporary file or
  // memory). Nothing was written.
  const Status& status() const { return status_; }

 private:
  friend class StateStore;
  struct Prefix {
    std::string key;
    int64_t erased_before;  // the puts before this id of keys starting with `key` are erased
  };
  LiveRows(StateStore* store, sqlite3_stmt* stmt, uint64_t job, bool bound, uint64_t want_rows,
           uint64_t want_digest);
  bool Step();  // to the log's next row (stmt_ on it), checking it; false at the end or on error
  void Finish(int rc);

  StateStore* store_;
  sqlite3_stmt* stmt_;
  uint64_t job_;
  bool bound_;
  uint64_t want_rows_, want_digest_;
  uint64_t rows_ = 0, bytes_ = 0, digest_ = 0;  // of the log's rows read so far
  bool on_row_ = false;  // stmt_ is on a row not yet taken into a key: op_, k_, v_, id_
  int64_t op_ = 0, id_ = 0;
  std::string_view k_, v_;  // valid until the next step
  bool done_ = false;
  std::string key_, value_;       // the row Next returned last
  std::vector<Prefix> prefixes_;  // the erases of prefixes of the keys ahead, nested
  Status status_;
};

class StateStore {
 public:
  // The state format this logtide writes (the file's user_version): it reads every older one
  // written since the first release's (2) and refuses a newer one.
  static constexpr int kFormat = 3;

  // Opens or creates the store and takes an exclusive lock on it for the life of the object.
  // Errors: Busy when another run holds it; Corruption for a damaged or foreign file (which is
  // never modified); IOError when it cannot be created.
  static Status Open(const std::string& path, bool durable, std::unique_ptr<StateStore>* out);
  ~StateStore();

  // True when the store had no checkpoint before this run.
  bool is_new() const { return is_new_; }
  const std::string& path() const { return path_; }

  // On a new store, records `query`. On an existing one, fails with Refused naming
  // every line of `query` ("name=value") that differs from the stored one, and with Corruption
  // when it holds none (its row was lost: the file is damaged).
  Status CheckQuery(const std::string& query);
  // Reads the last checkpoint, its window log's live rows left to be read from live_rows().
  // REQUIRES: !is_new().
  Status Load(Checkpoint* out);
  // After Load: the window log's live rows, by key. Nothing may be committed until they are
  // read (or drained) and their status() is ok.
  LiveRows* live_rows() { return live_.get(); }
  // The rows in the window log, once known (all of them read after Load, or a Commit).
  uint64_t log_rows() const { return log_rows_; }
  // Replaces the stored checkpoint with `c` in one transaction. With c.compact, the pages the
  // old log held are returned to the file system in that transaction.
  Status Commit(const Checkpoint& c);

  // Reads the query and the last checkpoint for `logtide inspect` and `state export`, without
  // taking the lock or writing anything, and gives each of the window log's live rows, by key,
  // to `each` as it is read (a row is valid during the call). Every row's sum and the binding
  // are checked as Load checks them (Corruption for a damaged or edited file; a damaged row
  // fails the read after the rows before it were given); out->file says how big the file is,
  // out->binding what was checked, out->window_log_rows and _bytes what the log holds.
  using RowFn = std::function<void(RowSource::Row)>;
  static Status Read(const std::string& path, std::string* query, Checkpoint* out,
                     const RowFn& each);

 private:
  friend class LiveRows;
  StateStore() = default;
  Status Exec(const char* sql);
  Status LoadRows(Checkpoint* c);
  sqlite3* db_ = nullptr;
  int lock_fd_ = -1;
  bool is_new_ = true;
  bool committed_ = false;  // by this run
  bool reclaims_ = false;   // the file has incremental auto-vacuum
  bool bound_ = false;      // format 3: its checkpoints carry a binding
  // The binding's running state (state_store.cc): the job's id, and the window log's rows and
  // digest as of the last checkpoint, once known (Load, Commit).
  uint64_t job_ = 0;
  bool log_known_ = false;
  uint64_t log_rows_ = 0;
  uint64_t log_digest_ = 0;
  std::unique_ptr<LiveRows> live_;  // Load's
  std::string path_;
};

}  // namespace logtide
