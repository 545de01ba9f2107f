// The checkpoint store: one SQLite database per job (--state FILE). It holds the query, the
// engine's state, every input's identity and position, and every output's committed length,
// and replaces them all in one transaction per checkpoint. It is the only user of sqlite3.h.
//
// Schema (PRAGMA user_version = 1, application_id = 0x4C544944 "LTID"):
//   meta(key TEXT PRIMARY KEY, value BLOB)      query, engine, finished, checkpoints, info.NAME
//   inputs(id INTEGER PRIMARY KEY, name TEXT, kind TEXT, fingerprint BLOB, fingerprint_len INT,
//          offset INT, line INT, max_time INT, tail_hash BLOB, dev INT, ino INT)
//   outputs(role TEXT PRIMARY KEY, path TEXT, length INT)
//   window_log(id INTEGER PRIMARY KEY, op INT, k BLOB, v BLOB)
//                                               open window state as a log of changes (op 0 put
//                                               k=v, 1 erase k, 2 erase keys starting with k):
//                                               each checkpoint appends only what changed, so it
//                                               writes pages in proportion to the changes;
//                                               replayed in id order on load, and rewritten
//                                               whole (compacted) when it outgrows the state
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "util/status.h"

struct sqlite3;

namespace logtide {

// Where one input stands.
struct InputPosition {
  std::string name;  // as given on the command line ("-" for stdin)
  std::string kind;  // "file" or "stdin"
  std::string
      fingerprint;  // files: hash of the first fingerprint_len bytes; stdin: of all consumed bytes
  uint64_t fingerprint_len = 0;
  uint64_t offset = 0;    // byte offset just past the last processed line
  uint64_t line = 0;      // lines processed
  int64_t max_time = 0;   // largest event time read (INT64_MIN: none)
  std::string tail_hash;  // files: hash of the bytes just before `offset`
  uint64_t dev = 0;       // files: device and inode, a hint when several files match
  uint64_t ino = 0;
};

struct OutputPosition {
  std::string role;  // "output", "late-output", "errors"
  std::string path;
  uint64_t length = 0;
};

// A change to the windows table since the last checkpoint.
struct StateOp {
  enum Kind : uint8_t { kPut, kErase, kErasePrefix };
  Kind kind;
  std::string key;
  std::string value;  // kPut only
};

struct Checkpoint {
  std::string engine;  // Engine snapshot (engine.cc)
  // Readable facts for `logtide inspect`: name and JSON value ("watermark", "open_windows", ...).
  std::vector<std::pair<std::string, std::string>> info;
  std::vector<InputPosition> inputs;
  std::vector<OutputPosition> outputs;
  bool finished = false;  // a run without --hold reached the end of its input
  uint64_t checkpoints = 0;
  std::vector<StateOp> window_ops;  // Commit: appended to the window log
  bool compact = false;             // Commit: window_ops is the whole state; drop the old log
  std::vector<std::pair<std::string, std::string>> windows;  // Load: the live rows, by key
  uint64_t window_log_rows = 0;                              // Load: rows in the log
};

class StateStore {
 public:
  // Opens or creates the store and takes an exclusive lock on it for the life of the object.
  // Errors: Busy when another run holds it; Corruption for a damaged or foreign file (which is
  // never modified); IOError when it cannot be created.
  static Status Open(const std::string& path, bool durable, std::unique_ptr<StateStore>* out);
  ~StateStore();

  // True when the store had no checkpoint before this run.
  bool is_new() const { return is_new_; }
  const std::string& path() const { return path_; }

  // On a new store, records `query`. On an existing one, fails with Refused naming
  // every line of `query` ("name=value") that differs from the stored one.
  Status CheckQuery(const std::string& query);
  // Reads the last checkpoint. REQUIRES: !is_new().
  Status Load(Checkpoint* out);
  // Replaces the stored checkpoint with `c` in one transaction.
  Status Commit(const Checkpoint& c);

  // Returns the state as JSON for `logtide inspect`, without taking the lock.
  static Status Inspect(const std::string& path, std::string* json);

 private:
  StateStore() = default;
  Status Exec(const char* sql);
  Status LoadRows(Checkpoint* c);
  sqlite3* db_ = nullptr;
  int lock_fd_ = -1;
  bool is_new_ = true;
  std::string path_;
};

}  // namespace logtide
