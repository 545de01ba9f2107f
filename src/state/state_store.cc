#include "state/state_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <string>

#include "util/quote.h"

namespace logtide {
namespace {

// Format 3 adds the meta row "binding" (below); format 2 (logtide since the checkpoint
// components) is read as well and becomes format 3 at its first checkpoint.
constexpr int kSchemaVersion = StateStore::kFormat;
constexpr int kUnboundVersion = 2;
constexpr int kApplicationId = 0x4C544944;  // "LTID"

const char* kSchema = R"(
CREATE TABLE meta(key TEXT PRIMARY KEY, value BLOB, sum INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE sections(name TEXT PRIMARY KEY, version INTEGER NOT NULL, data BLOB NOT NULL,
                      sum INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE window_log(id INTEGER PRIMARY KEY, op INTEGER NOT NULL, k BLOB NOT NULL, v BLOB NOT NULL,
                        sum INTEGER NOT NULL);
)";

// Every row carries `sum`, the XXH64 of its other fields, each with its length: a changed
// byte, a moved boundary between fields or a row edited by hand fails the check on load,
// where SQLite's integrity check sees nothing wrong.
int64_t RowSum(std::initializer_list<std::string_view> fields) {
  thread_local std::string buf;
  buf.clear();
  for (std::string_view f : fields) {
    const auto n = static_cast<uint32_t>(f.size());
    buf.append(reinterpret_cast<const char*>(&n), 4);
    buf.append(f);
  }
  return static_cast<int64_t>(XXH64(buf.data(), buf.size(), 0x4C544944));
}

// The binding: the meta row "binding" ties every section and window row to its checkpoint, so
// rows and sections from an older checkpoint, from another job, deleted, added or moved (a torn
// backup copy) do not load as one state, though each row's own sum is right. Its value:
//
//   binding  := "1" SP job SP checkpoints SP finished SP sections SP section-digest SP
//               log-rows SP log-digest
//   job      := 16 lowercase hex digits: random, chosen at the file's first bound checkpoint
//   checkpoints, sections, log-rows := decimal: equal to meta "checkpoints", the number of
//               sections and the number of window_log rows
//   finished := "0" | "1": equal to meta "finished"
//   section-digest := 16 hex digits: the sum mod 2^64, over the sections, of
//               XXH64(job u64 | checkpoints u64 | the row's sum u64, seed 0x4C544944)
//   log-digest := 16 hex digits: the sum mod 2^64, over the window_log rows, of
//               XXH64(job u64 | id u64 | the row's sum u64, seed 0x4C544944)
//   (integers little-endian). A sum of terms keeps the log's digest a running one: a
//   checkpoint adds the terms of the rows it appends (a compaction starts from 0), so binding
//   costs in proportion to the changes; loading recomputes both digests from the rows.
constexpr std::string_view kBindingVersion = "1";

uint64_t BindTerm(uint64_t job, uint64_t n, int64_t sum) {
  uint64_t buf[3] = {job, n, static_cast<uint64_t>(sum)};
  return XXH64(buf, sizeof buf, 0x4C544944);
}

struct Binding {
  uint64_t job = 0;
  uint64_t checkpoints = 0;
  bool finished = false;
  uint64_t sections = 0;
  uint64_t section_digest = 0;
  uint64_t log_rows = 0;
  uint64_t log_digest = 0;

  std::string Format() const {
    return fmt::format("{} {:016x} {} {} {} {:016x} {} {:016x}", kBindingVersion, job,
                       checkpoints, finished ? 1 : 0, sections, section_digest, log_rows,
                       log_digest);
  }
  // Parses a value Format wrote; false for anything else.
  bool Parse(const std::string& v) {
    unsigned long long f[8];
    char tail = 0;
    if (std::sscanf(v.c_str(), "%llu %llx %llu %llu %llu %llx %llu %llx%c", &f[0], &f[1], &f[2],
                    &f[3], &f[4], &f[5], &f[6], &f[7], &tail) != 8)
      return false;
    job = f[1], checkpoints = f[2], finished = f[3] == 1, sections = f[4], section_digest = f[5],
    log_rows = f[6], log_digest = f[7];
    return f[3] <= 1 && Format() == v;
  }
};

uint64_t NewJobId() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

std::string_view OpName(int64_t op) {
  static const char kOps[3] = {0, 1, 2};
  return op >= 0 && op < 3 ? std::string_view(&kOps[op], 1) : std::string_view();
}

std::string VersionBytes(int64_t v) { return std::to_string(v); }

Status Damaged(const std::string& path, std::string_view what) {
  return Status::Corruption(fmt::format(
      "state file {}: {} fails its checksum: the file is damaged; it was not changed", path, what));
}

// A prepared statement, finalized on scope exit.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
  ~Stmt() { sqlite3_finalize(stmt_); }
  bool ok() const { return rc_ == SQLITE_OK; }
  sqlite3_stmt* get() { return stmt_; }
  void Text(int i, const std::string& s) {
    sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
  }
  void Blob(int i, const std::string& s) {
    sqlite3_bind_blob(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
  }
  void Int(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  int Step() { return sqlite3_step(stmt_); }
  std::string ColText(int i) {
    const void* p = sqlite3_column_blob(stmt_, i);
    int n = sqlite3_column_bytes(stmt_, i);
    return p == nullptr ? std::string()
                        : std::string(static_cast<const char*>(p), static_cast<size_t>(n));
  }
  // The column's bytes, valid until the next Step.
  std::string_view ColView(int i) {
    const void* p = sqlite3_column_blob(stmt_, i);
    int n = sqlite3_column_bytes(stmt_, i);
    return p == nullptr ? std::string_view()
                        : std::string_view(static_cast<const char*>(p), static_cast<size_t>(n));
  }
  int64_t ColInt(int i) { return sqlite3_column_int64(stmt_, i); }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_;
};

Status DbError(sqlite3* db, const std::string& path, const char* what) {
  int code = sqlite3_errcode(db);
  std::string msg = fmt::format("state file {}: {}: {}", path, what, sqlite3_errmsg(db));
  if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) {
    return Status::Corruption(
        msg + " (the file is damaged or not a logtide state file; it was not changed)");
  }
  if (code == SQLITE_FULL || code == SQLITE_IOERR) {
    return Status::IOError(
        msg + " (is the disk full? the last checkpoint is intact; run again to resume)");
  }
  return Status::IOError(msg);
}

// DbError for reading a state that passed validation: a statement that does not fit the
// schema (a table or column missing or changed) means the file was damaged.
Status ReadError(sqlite3* db, const std::string& path, const char* what) {
  if (sqlite3_errcode(db) == SQLITE_ERROR) {
    return Status::Corruption(
        fmt::format("state file {}: {}: {} (its schema is damaged; it was not changed)", path, what,
                    sqlite3_errmsg(db)));
  }
  return DbError(db, path, what);
}

int64_t PragmaInt(sqlite3* db, const char* pragma, bool* ok) {
  Stmt s(db, pragma);
  if (!s.ok() || s.Step() != SQLITE_ROW) {
    *ok = false;
    return 0;
  }
  return s.ColInt(0);
}

Status GetMeta(sqlite3* db, const std::string& path, const char* key, std::string* value,
               bool* found) {
  Stmt s(db, "SELECT value, sum FROM meta WHERE key = ?");
  if (!s.ok()) return ReadError(db, path, "reading meta");
  s.Text(1, key);
  int rc = s.Step();
  *found = rc == SQLITE_ROW;
  if (*found) {
    *value = s.ColText(0);
    if (s.ColInt(1) != RowSum({key, *value})) return Damaged(path, "a meta row");
  }
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return ReadError(db, path, "reading meta");
  return Status::Ok();
}

// Opens and validates an existing, non-empty database without writing to it. Sets *blank for
// an SQLite database with no tables and no application id (not logtide's: it creates its
// state files whole).
Status Validate(sqlite3* db, const std::string& path, bool* blank, bool* bound) {
  bool ok = true;
  int64_t app = PragmaInt(db, "PRAGMA application_id", &ok);
  if (!ok) return DbError(db, path, "reading the header");
  int64_t version = PragmaInt(db, "PRAGMA user_version", &ok);
  if (!ok) return DbError(db, path, "reading the header");
  int64_t tables = PragmaInt(db, "SELECT count(*) FROM sqlite_master", &ok);
  // An SQLite file (its header was checked) whose schema cannot be read is damaged.
  if (!ok) return ReadError(db, path, "reading the schema");
  *blank = app == 0 && version == 0 && tables == 0;
  if (*blank) return Status::Ok();
  if (app != kApplicationId) {
    return Status::Corruption(fmt::format(
        "state file {} is an SQLite database but not a logtide state file; it was not changed",
        path));
  }
  *bound = version == kSchemaVersion;
  if (version != kSchemaVersion && version != kUnboundVersion) {
    return Status::Refused(fmt::format(
        "state file {} was written by {} version of logtide (state format {}; this version reads "
        "format {}); it was not changed. Finish the job with the logtide that wrote it, or start "
        "a new --state file",
        path, version < kSchemaVersion ? "an older" : "a newer", version, kSchemaVersion));
  }
  Stmt check(db, "PRAGMA quick_check");
  if (!check.ok() || check.Step() != SQLITE_ROW) return DbError(db, path, "checking integrity");
  std::string verdict = check.ColText(0);
  if (verdict != "ok") {
    return Status::Corruption(
        fmt::format("state file {} is damaged ({}); it was not changed", path, verdict));
  }
  return Status::Ok();
}

}  // namespace

StateStore::~StateStore() {
  live_.reset();  // its statement: a connection with one open is not closed
  if (db_ != nullptr) sqlite3_close(db_);
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

Status StateStore::Exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    Status s = DbError(db_, path_, sql);
    sqlite3_free(err);
    return s;
  }
  return Status::Ok();
}

// Creates a new state file at `path` atomically: the schema is written to a temporary file
// beside it, which is then linked into place. A run killed at any moment leaves either no file
// or a complete empty state, never a partial one (which the next run could not tell from a
// damaged or foreign file). Losing a race with another run creating it is fine: the caller
// then opens theirs.
Status CreateState(const std::string& path) {
  const std::string tmp = fmt::format("{}.new-{}", path, ::getpid());
  ::unlink(tmp.c_str());
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(tmp.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  std::string error;
  if (rc == SQLITE_OK) {
    // auto_vacuum takes effect only when set before the first table is created.
    const std::string create = fmt::format(
        "PRAGMA auto_vacuum = INCREMENTAL; PRAGMA journal_mode = WAL; BEGIN; {} PRAGMA "
        "application_id = {}; PRAGMA user_version = {}; COMMIT;",
        kSchema, kApplicationId, kSchemaVersion);
    rc = sqlite3_exec(db, create.c_str(), nullptr, nullptr, nullptr);
  }
  if (rc != SQLITE_OK) error = sqlite3_errmsg(db);
  if (sqlite3_close(db) != SQLITE_OK && error.empty()) error = "closing it failed";
  // link() fails if the path exists; where hard links are not supported, rename without
  // replacing does the same.
  if (error.empty() && ::link(tmp.c_str(), path.c_str()) != 0 && errno != EEXIST &&
      ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) != 0 &&
      errno != EEXIST)
    error = std::strerror(errno);
  const int saved = errno;
  for (const char* suffix : {"", "-wal", "-shm"}) ::unlink((tmp + suffix).c_str());
  errno = saved;
  if (!error.empty())
    return Status::IOError(fmt::format("cannot create state file {}: {}", path, error));
  return Status::Ok();
}

Status StateStore::Open(const std::string& path, bool durable, std::unique_ptr<StateStore>* out) {
  std::unique_ptr<StateStore> st(new StateStore());
  st->path_ = path;
  struct stat sb;
  if (::stat(path.c_str(), &sb) != 0 && errno == ENOENT) {
    Status s = CreateState(path);
    if (!s.ok()) return s;
  }
  // The lock: an open file description with flock, held until exit. SQLite's own locks are
  // fcntl locks on other descriptors and do not interfere.
  st->lock_fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (st->lock_fd_ < 0)
    return Status::IOError(
        fmt::format("cannot open state file {}: {}", path, std::strerror(errno)));
  if (::flock(st->lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      return Status::Busy(fmt::format(
          "state file {} is in use by another logtide run; nothing was read or written", path));
    }
    return Status::IOError(
        fmt::format("cannot lock state file {}: {}", path, std::strerror(errno)));
  }
  if (::fstat(st->lock_fd_, &sb) != 0)
    return Status::IOError(fmt::format("cannot stat {}: {}", path, std::strerror(errno)));
  // logtide creates its state files whole (CreateState): an empty file is someone else's.
  char header[16] = {};
  if (sb.st_size == 0 || ::pread(st->lock_fd_, header, 16, 0) != 16 ||
      std::memcmp(header, "SQLite format 3", 16) != 0) {
    return Status::Corruption(fmt::format(
        "state file {} is not a logtide state file ({}); it was not changed: name a new file, "
        "or remove this one if it is yours",
        path, sb.st_size == 0 ? "it is empty" : "not an SQLite database"));
  }
  if (sqlite3_open_v2(path.c_str(), &st->db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    return DbError(st->db_, path, "opening");
  }
  // Until this run commits, closing must not copy a write-ahead log left by an earlier run into
  // the file: a state refused (damaged, another query or version) is left as it was, byte for
  // byte. The first commit turns it back on (Commit).
  sqlite3_db_config(st->db_, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  sqlite3_busy_timeout(st->db_, 0);
  Status s;
  bool blank = false;
  if (!(s = Validate(st->db_, path, &blank, &st->bound_)).ok()) return s;
  if (blank) {
    return Status::Corruption(fmt::format(
        "state file {} is not a logtide state file (an SQLite database with no tables); it was "
        "not changed",
        path));
  }
  std::string v;
  bool found = false;
  if (!(s = GetMeta(st->db_, path, "checkpoints", &v, &found)).ok()) return s;
  st->is_new_ = !found;
  // A binding is written with a checkpoint, in its transaction: without the checkpoint's row
  // the file lost it.
  if (st->is_new_ && st->bound_) {
    bool bound = false;
    if (!(s = GetMeta(st->db_, path, "binding", &v, &bound)).ok()) return s;
    if (bound) {
      return Status::Corruption(fmt::format(
          "state file {} has a checkpoint's binding but no checkpoint: it is damaged; it was not "
          "changed",
          path));
    }
  }
  st->job_ = NewJobId();
  bool ok = true;
  st->reclaims_ = PragmaInt(st->db_, "PRAGMA auto_vacuum", &ok) == 2;  // INCREMENTAL
  if (!ok) return DbError(st->db_, path, "reading the header");
  if (!(s = st->Exec(durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")).ok())
    return s;
  *out = std::move(st);
  return Status::Ok();
}

Status StateStore::CheckQuery(const std::string& query) {
  std::string stored;
  bool found = false;
  Status s = GetMeta(db_, path_, "query", &stored, &found);
  if (!s.ok()) return s;
  if (!found) {
    // A job's query is recorded before its first checkpoint: a state with checkpoints and no
    // query lost its row (damaged), and taking this run's would resume another query's windows.
    if (!is_new_) {
      return Status::Corruption(fmt::format(
          "state file {} has checkpoints but no query: it is damaged; it was not changed", path_));
    }
    Stmt put(db_, "INSERT INTO meta(key, value, sum) VALUES('query', ?, ?)");
    put.Blob(1, query);
    put.Int(2, RowSum({"query", query}));
    if (!put.ok() || put.Step() != SQLITE_DONE) return DbError(db_, path_, "saving the query");
    return Status::Ok();
  }
  if (stored == query) return Status::Ok();
  // Name every setting that differs, by name: a setting written only when it is given (such as
  // --max-future) is "not set" on the side that lacks it.
  auto settings = [](const std::string& q) {
    std::vector<std::pair<std::string, std::string>> out;  // in the text's order
    size_t pos = 0;
    while (pos < q.size()) {
      size_t nl = q.find('\n', pos);
      const std::string line = q.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      const size_t eq = line.find('=');
      out.emplace_back(line.substr(0, eq), eq == std::string::npos ? "" : line.substr(eq + 1));
      if (nl == std::string::npos) break;
      pos = nl + 1;
    }
    return out;
  };
  const auto was = settings(stored), now = settings(query);
  auto find = [](const std::vector<std::pair<std::string, std::string>>& v,
                 const std::string& name) -> const std::string* {
    for (const auto& [n, value] : v) {
      if (n == name) return &value;
    }
    return nullptr;
  };
  auto side = [](const char* who, const std::string* v) {
    return v == nullptr ? fmt::format("{} does not set it", who)
                        : fmt::format("{} has \"{}\"", who, *v);
  };
  std::string diff;
  std::vector<std::string> names;
  for (const auto& [n, v] : now) names.push_back(n);
  for (const auto& [n, v] : was) {
    if (find(now, n) == nullptr) names.push_back(n);
  }
  for (const std::string& name : names) {
    const std::string *a = find(was, name), *b = find(now, name);
    if (a != nullptr && b != nullptr && *a == *b) continue;
    fmt::format_to(std::back_inserter(diff), "\n  {}: {}, {}", name, side("the state", a),
                   side("this run", b));
  }
  return Status::Refused(
      fmt::format("state file {} belongs to another query; nothing was changed. Use a new --state "
                  "file, or the same flags:{}",
                  path_, diff));
}

namespace {

std::string_view ColumnView(sqlite3_stmt* stmt, int i) {
  const void* p = sqlite3_column_blob(stmt, i);
  const int n = sqlite3_column_bytes(stmt, i);
  return p == nullptr ? std::string_view()
                      : std::string_view(static_cast<const char*>(p), static_cast<size_t>(n));
}

Status BindingMismatch(const std::string& path, std::string_view what, std::string_view has,
                       std::string_view want) {
  return Status::Corruption(fmt::format(
      "state file {} is damaged: its {} do not match its last checkpoint ({}, the checkpoint "
      "recorded {}): rows from another checkpoint or another job, or rows added, deleted or "
      "moved; it was not changed",
      path, what, has, want));
}

Status LogMismatch(const std::string& path, uint64_t rows, uint64_t digest, uint64_t want_rows,
                   uint64_t want_digest) {
  return BindingMismatch(path, "window rows", fmt::format("{} rows, digest {:016x}", rows, digest),
                         fmt::format("{}, digest {:016x}", want_rows, want_digest));
}

Status UnknownChange(const std::string& path, int64_t op) {
  return Status::Corruption(
      fmt::format("state file {}: unknown window change {}; it was not changed", path, op));
}

bool KnownOp(int64_t op) {
  return op == StateOp::kPut || op == StateOp::kErase || op == StateOp::kErasePrefix;
}

}  // namespace

LiveRows::LiveRows(StateStore* store, sqlite3_stmt* stmt, uint64_t job, bool bound,
                   uint64_t want_rows, uint64_t want_digest)
    : store_(store),
      stmt_(stmt),
      job_(job),
      bound_(bound),
      want_rows_(want_rows),
      want_digest_(want_digest) {}

LiveRows::~LiveRows() { sqlite3_finalize(stmt_); }

void LiveRows::Finish(int rc) {
  done_ = true;
  on_row_ = false;
  if (status_.ok() && rc != SQLITE_DONE) {
    const int code = sqlite3_errcode(store_->db_);
    if (code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_NOMEM) {
      // Most likely the sort's temporary file, not the state file.
      status_ = Status::IOError(fmt::format(
          "state file {}: reading windows: {} (a resume sorts the window rows in a temporary "
          "file: is there room in SQLITE_TMPDIR or TMPDIR, or memory? the state file was not "
          "changed; run again to resume)",
          store_->path_, sqlite3_errmsg(store_->db_)));
    } else {
      status_ = ReadError(store_->db_, store_->path_, "reading windows");
      // A state that passed the integrity check but cannot be read as our schema was damaged.
      if (status_.code() == Status::Code::kIOError)
        status_ = Status::Corruption(status_.message() +
                                     " (the state file is damaged; it was not changed)");
    }
  }
  if (status_.ok() && bound_ && (rows_ != want_rows_ || digest_ != want_digest_))
    status_ = LogMismatch(store_->path_, rows_, digest_, want_rows_, want_digest_);
  if (status_.ok()) {
    store_->log_rows_ = rows_;
    store_->log_digest_ = digest_;
    store_->log_known_ = true;
  }
  sqlite3_finalize(stmt_);
  stmt_ = nullptr;
}

bool LiveRows::Step() {
  const int rc = sqlite3_step(stmt_);
  if (rc != SQLITE_ROW) {
    Finish(rc);
    return false;
  }
  ++rows_;
  op_ = sqlite3_column_int64(stmt_, 0);
  k_ = ColumnView(stmt_, 1);
  v_ = ColumnView(stmt_, 2);
  bytes_ += k_.size() + v_.size();
  const int64_t sum = sqlite3_column_int64(stmt_, 3);
  id_ = sqlite3_column_int64(stmt_, 4);
  if (sum != RowSum({OpName(op_), k_, v_})) {
    status_ = Damaged(store_->path_, "a window row");
  } else if (!KnownOp(op_)) {
    status_ = UnknownChange(store_->path_, op_);
  }
  if (!status_.ok()) {
    Finish(SQLITE_DONE);
    return false;
  }
  digest_ += BindTerm(job_, static_cast<uint64_t>(id_), sum);
  on_row_ = true;
  return true;
}

// The log comes by key and, for one key, by id. A key is live when its last put or erase is a
// put and no erase of a prefix of it (the prefix sorts before it, and its keys follow it in a
// run) came after that put.
bool LiveRows::Next(Row* row) {
  while (true) {
    if (!on_row_ && (done_ || !Step())) return false;
    key_.assign(k_);
    int64_t last_id = -1, prefix_erased = -1;
    bool put = false;
    do {
      if (op_ == StateOp::kErasePrefix) {
        prefix_erased = id_;
        continue;
      }
      last_id = id_;
      put = op_ == StateOp::kPut;
      if (put) value_.assign(v_);
    } while (Step() && k_ == key_);
    if (!status_.ok()) return false;
    while (!prefixes_.empty() && !std::string_view(key_).starts_with(prefixes_.back().key))
      prefixes_.pop_back();
    int64_t erased_before = prefixes_.empty() ? -1 : prefixes_.back().erased_before;
    if (prefix_erased >= 0) {
      erased_before = std::max(erased_before, prefix_erased);
      prefixes_.push_back({key_, erased_before});
    }
    if (put && last_id > erased_before) {
      *row = {key_, value_};
      return true;
    }
  }
}

void LiveRows::Drain() {
  for (Row row; Next(&row);) {
  }
}

Status StateStore::Load(Checkpoint* c) {
  Status s = LoadRows(c);
  // A state that passed the integrity check but cannot be read as our schema was damaged.
  if (!s.ok() && s.code() == Status::Code::kIOError) {
    return Status::Corruption(s.message() + " (the state file is damaged; it was not changed)");
  }
  return s;
}

Status StateStore::LoadRows(Checkpoint* c) {
  bool found = false, has_checkpoint = false;
  std::string v;
  Status s = GetMeta(db_, path_, "finished", &v, &found);
  c->finished = found && v == "1";
  if (s.ok()) s = GetMeta(db_, path_, "checkpoints", &v, &has_checkpoint);
  c->checkpoints = has_checkpoint ? std::strtoull(v.c_str(), nullptr, 10) : 0;
  if (!s.ok()) return s;
  // The binding (format 3): a format 2 file has none and takes one at its next checkpoint. It
  // is written with a checkpoint, in its transaction: a file with one and not the other lost a
  // row. (Load is only called with a checkpoint; Read also sees a job killed before its first.)
  Binding bind;
  bool bound = false;
  if (bound_) {
    if (!(s = GetMeta(db_, path_, "binding", &v, &bound)).ok()) return s;
    if (bound && !has_checkpoint) {
      return Status::Corruption(fmt::format(
          "state file {} has a checkpoint's binding but no checkpoint: it is damaged; it was not "
          "changed",
          path_));
    }
    if (!bound && has_checkpoint) {
      return Status::Corruption(fmt::format(
          "state file {} is damaged: its last checkpoint's binding is missing; it was not changed",
          path_));
    }
    if (bound && !bind.Parse(v)) {
      return Status::Corruption(fmt::format(
          "state file {} is damaged: its last checkpoint's binding is not one logtide writes; it "
          "was not changed",
          path_));
    }
  }
  const uint64_t job = bound ? bind.job : job_;
  uint64_t sections = 0, section_digest = 0;
  int rc;
  Stmt info(db_, "SELECT key, value, sum FROM meta WHERE key LIKE 'info.%' ORDER BY key");
  if (!info.ok()) return ReadError(db_, path_, "reading meta");
  while ((rc = info.Step()) == SQLITE_ROW) {
    const std::string key = info.ColText(0), value = info.ColText(1);
    if (info.ColInt(2) != RowSum({key, value})) return Damaged(path_, "a meta row");
    c->info.emplace_back(key.substr(5), value);
  }
  if (rc != SQLITE_DONE) return ReadError(db_, path_, "reading meta");
  Stmt sec(db_, "SELECT name, version, data, sum FROM sections ORDER BY name");
  if (!sec.ok()) return ReadError(db_, path_, "reading sections");
  while ((rc = sec.Step()) == SQLITE_ROW) {
    Section section{sec.ColText(0), static_cast<uint32_t>(sec.ColInt(1)), sec.ColText(2)};
    if (sec.ColInt(3) != RowSum({section.name, VersionBytes(sec.ColInt(1)), section.data}))
      return Damaged(path_, fmt::format("the {} section", QuoteForMessage(section.name)));
    ++sections;
    section_digest += BindTerm(job, c->checkpoints, sec.ColInt(3));
    c->sections.push_back(std::move(section));
  }
  if (rc != SQLITE_DONE) return ReadError(db_, path_, "reading sections");
  if (bound) {
    if (bind.checkpoints != c->checkpoints || bind.finished != c->finished)
      return BindingMismatch(path_, "meta rows", fmt::format("checkpoint {}", c->checkpoints),
                             fmt::format("checkpoint {}", bind.checkpoints));
    if (bind.sections != sections || bind.section_digest != section_digest)
      return BindingMismatch(
          path_, "sections", fmt::format("{} sections, digest {:016x}", sections, section_digest),
          fmt::format("{}, digest {:016x}", bind.sections, bind.section_digest));
  }
  c->binding.format = bound_ ? kSchemaVersion : kUnboundVersion;
  c->binding.bound = bound;
  c->binding.job = bound ? bind.job : 0;
  c->binding.sections = sections;
  bool ok = true;
  c->file.page_size = static_cast<uint64_t>(PragmaInt(db_, "PRAGMA page_size", &ok));
  c->file.pages = static_cast<uint64_t>(PragmaInt(db_, "PRAGMA page_count", &ok));
  c->file.free_pages = static_cast<uint64_t>(PragmaInt(db_, "PRAGMA freelist_count", &ok));
  c->file.reclaims = PragmaInt(db_, "PRAGMA auto_vacuum", &ok) == 2;
  if (!ok) return ReadError(db_, path_, "reading the file's size");
  // The live rows are read as they are restored (LiveRows), which checks them.
  job_ = job;
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT op, k, v, sum, id FROM window_log ORDER BY CAST(k AS BLOB), id",
                         -1, &stmt, nullptr) != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return ReadError(db_, path_, "reading windows");
  }
  live_.reset(new LiveRows(this, stmt, job, bound, bind.log_rows, bind.log_digest));
  return Status::Ok();
}

Status StateStore::Commit(const Checkpoint& c) {
  Status s;
  // Write-ahead logging is turned on by the first commit, not on opening: a state refused
  // before it (damaged, another query or version) keeps even its header as it was. (Files
  // logtide creates have it from the start: then this changes nothing.)
  if (!committed_ && !(s = Exec("PRAGMA journal_mode = WAL")).ok()) return s;
  if (!(s = Exec("BEGIN IMMEDIATE")).ok()) return s;
  auto fail = [&](const char* what) {
    Status e = DbError(db_, path_, what);
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return e;
  };
  // The binding's running state: known from Load, or (a commit with no load before it) summed
  // from the log once.
  uint64_t log_rows = log_rows_, log_digest = log_digest_;
  if (!log_known_) {
    log_rows = log_digest = 0;
    Stmt rows(db_, "SELECT id, sum FROM window_log");
    if (!rows.ok()) return fail("saving the checkpoint");
    int rc;
    while ((rc = rows.Step()) == SQLITE_ROW) {
      ++log_rows;
      log_digest += BindTerm(job_, static_cast<uint64_t>(rows.ColInt(0)), rows.ColInt(1));
    }
    if (rc != SQLITE_DONE) return fail("saving the checkpoint");
  }
  Binding bind;
  bind.job = job_;
  bind.checkpoints = c.checkpoints;
  bind.finished = c.finished;
  {
    Stmt put(db_, "INSERT OR REPLACE INTO meta(key, value, sum) VALUES(?, ?, ?)");
    if (!put.ok()) return fail("saving the checkpoint");
    std::vector<std::pair<std::string, std::string>> meta = {
        {"finished", c.finished ? "1" : "0"}, {"checkpoints", std::to_string(c.checkpoints)}};
    for (const auto& [k, v] : c.info) meta.emplace_back("info." + k, v);
    for (const auto& [k, v] : meta) {
      sqlite3_reset(put.get());
      put.Text(1, k);
      put.Blob(2, v);
      put.Int(3, RowSum({k, v}));
      if (put.Step() != SQLITE_DONE) return fail("saving the checkpoint");
    }
  }
  if (sqlite3_exec(db_, "DELETE FROM sections", nullptr, nullptr, nullptr) != SQLITE_OK)
    return fail("saving the checkpoint");
  {
    Stmt put(db_, "INSERT INTO sections(name, version, data, sum) VALUES(?, ?, ?, ?)");
    if (!put.ok()) return fail("saving the checkpoint");
    for (const Section& sec : c.sections) {
      sqlite3_reset(put.get());
      put.Text(1, sec.name);
      put.Int(2, sec.version);
      put.Blob(3, sec.data);
      const int64_t sum = RowSum({sec.name, VersionBytes(sec.version), sec.data});
      put.Int(4, sum);
      if (put.Step() != SQLITE_DONE) return fail("saving the checkpoint");
      ++bind.sections;
      bind.section_digest += BindTerm(job_, c.checkpoints, sum);
    }
  }
  {
    if (c.compact &&
        sqlite3_exec(db_, "DELETE FROM window_log", nullptr, nullptr, nullptr) != SQLITE_OK) {
      return fail("compacting windows");
    }
    if (c.compact) log_rows = log_digest = 0;
    Stmt put(db_, "INSERT INTO window_log(op, k, v, sum) VALUES(?, ?, ?, ?)");
    if (!put.ok()) return fail("saving windows");
    for (const StateOp& op : c.window_ops) {
      sqlite3_reset(put.get());
      put.Int(1, op.kind);
      put.Blob(2, op.key);
      put.Blob(3, op.value);
      const int64_t sum = RowSum({OpName(op.kind), op.key, op.value});
      put.Int(4, sum);
      if (put.Step() != SQLITE_DONE) return fail("saving windows");
      ++log_rows;
      log_digest += BindTerm(job_, static_cast<uint64_t>(sqlite3_last_insert_rowid(db_)), sum);
    }
  }
  bind.log_rows = log_rows;
  bind.log_digest = log_digest;
  {
    Stmt put(db_, "INSERT OR REPLACE INTO meta(key, value, sum) VALUES('binding', ?, ?)");
    const std::string v = bind.Format();
    put.Blob(1, v);
    put.Int(2, RowSum({"binding", v}));
    if (!put.ok() || put.Step() != SQLITE_DONE) return fail("saving the checkpoint");
  }
  // A format 2 file becomes format 3 with its first bound checkpoint, in its transaction.
  if (!bound_ && sqlite3_exec(db_, fmt::format("PRAGMA user_version = {}", kSchemaVersion).c_str(),
                              nullptr, nullptr, nullptr) != SQLITE_OK)
    return fail("saving the checkpoint");
  // The pages the old log held, beyond those the new one reused, leave the file in the same
  // transaction (it shrinks when the WAL is next copied into it): the file stays the size of
  // the state it holds. (Run to completion by sqlite3_exec; a no-op without auto-vacuum.)
  if (c.compact && reclaims_ &&
      sqlite3_exec(db_, "PRAGMA incremental_vacuum", nullptr, nullptr, nullptr) != SQLITE_OK)
    return fail("returning free pages");
  if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK)
    return fail("committing");
  log_rows_ = log_rows;
  log_digest_ = log_digest;
  log_known_ = true;
  bound_ = true;
  if (!committed_) {
    // The state is this run's now: closing may checkpoint the log into the file again.
    sqlite3_db_config(db_, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, nullptr);
    committed_ = true;
  }
  // A file made before state files had auto-vacuum is converted once, right after a
  // compaction left it smallest: VACUUM rewrites it with auto-vacuum on, in a transaction of
  // its own that changes no row (a kill during it leaves the file as the commit above left
  // it). If it fails (a full disk), the checkpoint stands and the next compaction tries again.
  if (c.compact && !reclaims_ &&
      sqlite3_exec(db_, "PRAGMA auto_vacuum = INCREMENTAL; VACUUM", nullptr, nullptr, nullptr) ==
          SQLITE_OK)
    reclaims_ = true;
  return Status::Ok();
}

Status StateStore::Read(const std::string& path, std::string* query, Checkpoint* out,
                        const RowFn& each) {
  std::unique_ptr<StateStore> st(new StateStore());
  st->path_ = path;
  if (sqlite3_open_v2(path.c_str(), &st->db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
    return DbError(st->db_, path, "opening");
  // One read transaction: every read sees the same checkpoint, also while a run commits new
  // ones (inspect takes no lock), so the binding check never compares rows of two checkpoints.
  Status s = st->Exec("BEGIN");
  if (!s.ok()) return s;
  bool blank = false;
  if (!(s = Validate(st->db_, path, &blank, &st->bound_)).ok()) return s;
  if (blank)
    return Status::Corruption(fmt::format("state file {} is not a logtide state file", path));
  bool found = false;
  if (!(s = GetMeta(st->db_, path, "query", query, &found)).ok()) return s;
  if (!found) query->clear();
  s = st->LoadRows(out);
  if (!s.ok() && s.code() == Status::Code::kIOError)
    return Status::Corruption(s.message() + " (the state file is damaged)");
  if (!s.ok()) return s;
  // The rows' own status tells a damaged file from a sort without room (LiveRows::status).
  LiveRows* rows = st->live_rows();
  for (RowSource::Row row; rows->Next(&row);) each(row);
  if (!rows->status().ok()) return rows->status();
  out->window_log_rows = rows->rows_;
  out->window_log_bytes = rows->bytes_;
  return st->Exec("COMMIT");
}

}  // namespace logtide
