#include "state/state_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "output/json_text.h"
#include "time/timestamp.h"

namespace logtide {
namespace {

constexpr int kSchemaVersion = 1;
constexpr int kApplicationId = 0x4C544944;  // "LTID"

const char* kSchema = R"(
CREATE TABLE meta(key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID;
CREATE TABLE inputs(id INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL,
                    fingerprint BLOB NOT NULL, fingerprint_len INTEGER NOT NULL, offset INTEGER NOT NULL,
                    line INTEGER NOT NULL, max_time INTEGER NOT NULL, tail_hash BLOB NOT NULL,
                    dev INTEGER NOT NULL, ino INTEGER NOT NULL);
CREATE TABLE outputs(role TEXT PRIMARY KEY, path TEXT NOT NULL, length INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE window_log(id INTEGER PRIMARY KEY, op INTEGER NOT NULL, k BLOB NOT NULL, v BLOB NOT NULL);
)";

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
  Stmt s(db, "SELECT value FROM meta WHERE key = ?");
  if (!s.ok()) return DbError(db, path, "reading meta");
  s.Text(1, key);
  int rc = s.Step();
  *found = rc == SQLITE_ROW;
  if (*found) *value = s.ColText(0);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return DbError(db, path, "reading meta");
  return Status::Ok();
}

// Opens and validates an existing, non-empty database without writing to it. Sets *blank for
// an SQLite database with no tables and no application id: a creation that was interrupted
// (killed after the header was written, before the schema was committed).
Status Validate(sqlite3* db, const std::string& path, bool* blank) {
  bool ok = true;
  int64_t app = PragmaInt(db, "PRAGMA application_id", &ok);
  if (!ok) return DbError(db, path, "reading the header");
  int64_t version = PragmaInt(db, "PRAGMA user_version", &ok);
  if (!ok) return DbError(db, path, "reading the header");
  int64_t tables = PragmaInt(db, "SELECT count(*) FROM sqlite_master", &ok);
  if (!ok) return DbError(db, path, "reading the schema");
  *blank = app == 0 && version == 0 && tables == 0;
  if (*blank) return Status::Ok();
  if (app != kApplicationId) {
    return Status::Corruption(fmt::format(
        "state file {} is an SQLite database but not a logtide state file; it was not changed",
        path));
  }
  if (version != kSchemaVersion) {
    return Status::Corruption(
        fmt::format("state file {} has schema version {}, this logtide reads version {}", path,
                    version, kSchemaVersion));
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

Status StateStore::Open(const std::string& path, bool durable, std::unique_ptr<StateStore>* out) {
  std::unique_ptr<StateStore> st(new StateStore());
  st->path_ = path;
  // The lock: an open file description with flock, held until exit. SQLite's own locks are
  // fcntl locks on other descriptors and do not interfere.
  st->lock_fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
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
  struct stat sb;
  if (::fstat(st->lock_fd_, &sb) != 0)
    return Status::IOError(fmt::format("cannot stat {}: {}", path, std::strerror(errno)));
  bool empty = sb.st_size == 0;
  if (!empty) {
    char header[16] = {};
    if (::pread(st->lock_fd_, header, 16, 0) != 16 ||
        std::memcmp(header, "SQLite format 3", 16) != 0) {
      return Status::Corruption(fmt::format(
          "state file {} is not a logtide state file (not an SQLite database); it was not changed",
          path));
    }
  }
  if (sqlite3_open_v2(path.c_str(), &st->db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    return DbError(st->db_, path, "opening");
  }
  sqlite3_busy_timeout(st->db_, 0);
  Status s;
  if (!empty) {
    bool blank = false;
    if (!(s = Validate(st->db_, path, &blank)).ok()) return s;
    if (blank) {
      empty = true;
    } else {
      std::string v;
      bool found = false;
      if (!(s = GetMeta(st->db_, path, "engine", &v, &found)).ok()) return s;
      st->is_new_ = !found;
    }
  }
  if (!(s = st->Exec("PRAGMA journal_mode = WAL")).ok()) return s;
  if (!(s = st->Exec(durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")).ok())
    return s;
  if (empty) {
    std::string create =
        fmt::format("BEGIN; {} PRAGMA application_id = {}; PRAGMA user_version = {}; COMMIT;",
                    kSchema, kApplicationId, kSchemaVersion);
    if (!(s = st->Exec(create.c_str())).ok()) return s;
  }
  *out = std::move(st);
  return Status::Ok();
}

Status StateStore::CheckQuery(const std::string& query) {
  std::string stored;
  bool found = false;
  Status s = GetMeta(db_, path_, "query", &stored, &found);
  if (!s.ok()) return s;
  if (!found) {
    Stmt put(db_, "INSERT INTO meta(key, value) VALUES('query', ?)");
    put.Blob(1, query);
    if (!put.ok() || put.Step() != SQLITE_DONE) return DbError(db_, path_, "saving the query");
    return Status::Ok();
  }
  if (stored == query) return Status::Ok();
  // Name every setting that differs, line by line ("name=value").
  auto lines = [](const std::string& q) {
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos < q.size()) {
      size_t nl = q.find('\n', pos);
      out.push_back(q.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos));
      if (nl == std::string::npos) break;
      pos = nl + 1;
    }
    return out;
  };
  std::vector<std::string> a = lines(stored), b = lines(query);
  std::string diff;
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    std::string was = i < a.size() ? a[i] : "", now = i < b.size() ? b[i] : "";
    if (was == now) continue;
    size_t eq = now.find('=');
    fmt::format_to(std::back_inserter(diff), "\n  {}: the state has \"{}\", this run has \"{}\"",
                   now.substr(0, eq), was.substr(was.find('=') + 1), now.substr(eq + 1));
  }
  return Status::Refused(
      fmt::format("state file {} belongs to another query; nothing was changed. Use a new --state "
                  "file, or the same flags:{}",
                  path_, diff));
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
  bool found = false;
  Status s = GetMeta(db_, path_, "engine", &c->engine, &found);
  std::string v;
  if (s.ok()) s = GetMeta(db_, path_, "finished", &v, &found);
  c->finished = found && v == "1";
  if (s.ok()) s = GetMeta(db_, path_, "checkpoints", &v, &found);
  c->checkpoints = found ? std::strtoull(v.c_str(), nullptr, 10) : 0;
  if (!s.ok()) return s;
  Stmt in(db_,
          "SELECT name, kind, fingerprint, fingerprint_len, offset, line, max_time, tail_hash, "
          "dev, ino FROM inputs ORDER BY id");
  if (!in.ok()) return DbError(db_, path_, "reading inputs");
  int rc;
  while ((rc = in.Step()) == SQLITE_ROW) {
    InputPosition p;
    p.name = in.ColText(0);
    p.kind = in.ColText(1);
    p.fingerprint = in.ColText(2);
    p.fingerprint_len = static_cast<uint64_t>(in.ColInt(3));
    p.offset = static_cast<uint64_t>(in.ColInt(4));
    p.line = static_cast<uint64_t>(in.ColInt(5));
    p.max_time = in.ColInt(6);
    p.tail_hash = in.ColText(7);
    p.dev = static_cast<uint64_t>(in.ColInt(8));
    p.ino = static_cast<uint64_t>(in.ColInt(9));
    c->inputs.push_back(std::move(p));
  }
  if (rc != SQLITE_DONE) return DbError(db_, path_, "reading inputs");
  Stmt outs(db_, "SELECT role, path, length FROM outputs ORDER BY role");
  if (!outs.ok()) return DbError(db_, path_, "reading outputs");
  while ((rc = outs.Step()) == SQLITE_ROW) {
    c->outputs.push_back(
        OutputPosition{outs.ColText(0), outs.ColText(1), static_cast<uint64_t>(outs.ColInt(2))});
  }
  if (rc != SQLITE_DONE) return DbError(db_, path_, "reading outputs");
  // Replay the log: later changes win. (Loading is not a hot path: an ordered map is fine.)
  std::map<std::string, std::string> live;
  Stmt win(db_, "SELECT op, k, v FROM window_log ORDER BY id");
  if (!win.ok()) return DbError(db_, path_, "reading windows");
  while ((rc = win.Step()) == SQLITE_ROW) {
    ++c->window_log_rows;
    int64_t op = win.ColInt(0);
    std::string k = win.ColText(1);
    if (op == StateOp::kPut) {
      live[k] = win.ColText(2);
    } else if (op == StateOp::kErase) {
      live.erase(k);
    } else if (op == StateOp::kErasePrefix) {
      auto it = live.lower_bound(k);
      while (it != live.end() && it->first.compare(0, k.size(), k) == 0) it = live.erase(it);
    } else {
      return Status::Corruption(
          fmt::format("state file {}: unknown window change {}; it was not changed", path_, op));
    }
  }
  if (rc != SQLITE_DONE) return DbError(db_, path_, "reading windows");
  c->windows.assign(live.begin(), live.end());
  return Status::Ok();
}

Status StateStore::Commit(const Checkpoint& c) {
  Status s = Exec("BEGIN IMMEDIATE");
  if (!s.ok()) return s;
  auto fail = [&](const char* what) {
    Status e = DbError(db_, path_, what);
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return e;
  };
  {
    Stmt put(db_, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
    if (!put.ok()) return fail("saving the checkpoint");
    std::vector<std::pair<std::string, std::string>> meta = {
        {"engine", c.engine},
        {"finished", c.finished ? "1" : "0"},
        {"checkpoints", std::to_string(c.checkpoints)}};
    for (const auto& [k, v] : c.info) meta.emplace_back("info." + k, v);
    for (const auto& [k, v] : meta) {
      sqlite3_reset(put.get());
      put.Text(1, k);
      put.Blob(2, v);
      if (put.Step() != SQLITE_DONE) return fail("saving the checkpoint");
    }
  }
  if (sqlite3_exec(db_, "DELETE FROM inputs; DELETE FROM outputs;", nullptr, nullptr, nullptr) !=
      SQLITE_OK) {
    return fail("saving the checkpoint");
  }
  {
    Stmt put(db_,
             "INSERT INTO inputs(id, name, kind, fingerprint, fingerprint_len, offset, line, "
             "max_time, tail_hash, "
             "dev, ino) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!put.ok()) return fail("saving inputs");
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      const InputPosition& p = c.inputs[i];
      sqlite3_reset(put.get());
      put.Int(1, static_cast<int64_t>(i));
      put.Text(2, p.name);
      put.Text(3, p.kind);
      put.Blob(4, p.fingerprint);
      put.Int(5, static_cast<int64_t>(p.fingerprint_len));
      put.Int(6, static_cast<int64_t>(p.offset));
      put.Int(7, static_cast<int64_t>(p.line));
      put.Int(8, p.max_time);
      put.Blob(9, p.tail_hash);
      put.Int(10, static_cast<int64_t>(p.dev));
      put.Int(11, static_cast<int64_t>(p.ino));
      if (put.Step() != SQLITE_DONE) return fail("saving inputs");
    }
  }
  {
    Stmt put(db_, "INSERT INTO outputs(role, path, length) VALUES(?, ?, ?)");
    if (!put.ok()) return fail("saving outputs");
    for (const OutputPosition& o : c.outputs) {
      sqlite3_reset(put.get());
      put.Text(1, o.role);
      put.Text(2, o.path);
      put.Int(3, static_cast<int64_t>(o.length));
      if (put.Step() != SQLITE_DONE) return fail("saving outputs");
    }
  }
  {
    if (c.compact &&
        sqlite3_exec(db_, "DELETE FROM window_log", nullptr, nullptr, nullptr) != SQLITE_OK) {
      return fail("compacting windows");
    }
    Stmt put(db_, "INSERT INTO window_log(op, k, v) VALUES(?, ?, ?)");
    if (!put.ok()) return fail("saving windows");
    for (const StateOp& op : c.window_ops) {
      sqlite3_reset(put.get());
      put.Int(1, op.kind);
      put.Blob(2, op.key);
      put.Blob(3, op.value);
      if (put.Step() != SQLITE_DONE) return fail("saving windows");
    }
  }
  if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK)
    return fail("committing");
  return Status::Ok();
}

Status StateStore::Inspect(const std::string& path, std::string* json) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    Status s = DbError(db, path, "opening");
    sqlite3_close(db);
    return s;
  }
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> guard(db, sqlite3_close);
  bool blank = false;
  Status s = Validate(db, path, &blank);
  if (!s.ok()) return s;
  if (blank) return Status::Corruption(fmt::format("state file {} holds no checkpoint yet", path));
  std::string& j = *json;
  j = "{";
  std::string v;
  bool found = false;
  if (!(s = GetMeta(db, path, "query", &v, &found)).ok()) return s;
  j += "\"query\":{";
  bool first = true;
  size_t pos = 0;
  while (found && pos < v.size()) {
    size_t nl = v.find('\n', pos);
    std::string line = v.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    size_t eq = line.find('=');
    if (!first) j += ",";
    first = false;
    AppendJsonString(line.substr(0, eq), &j);
    j += ":";
    AppendJsonString(line.substr(eq + 1), &j);
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  j += "}";
  if (!(s = GetMeta(db, path, "finished", &v, &found)).ok()) return s;
  j += fmt::format(",\"finished\":{}", found && v == "1" ? "true" : "false");
  if (!(s = GetMeta(db, path, "checkpoints", &v, &found)).ok()) return s;
  j += fmt::format(",\"checkpoints\":{}", found ? v : "0");
  Stmt info(db, "SELECT key, value FROM meta WHERE key LIKE 'info.%' ORDER BY key");
  while (info.ok() && info.Step() == SQLITE_ROW) {
    j += ",";
    AppendJsonString(info.ColText(0).substr(5), &j);
    j += ":" + info.ColText(1);
  }
  j += ",\"inputs\":[";
  Stmt in(db,
          "SELECT name, kind, offset, line, max_time, fingerprint, fingerprint_len, dev, ino FROM "
          "inputs ORDER BY id");
  first = true;
  while (in.ok() && in.Step() == SQLITE_ROW) {
    j += first ? "{" : ",{";
    first = false;
    j += "\"name\":";
    AppendJsonString(in.ColText(0), &j);
    j += ",\"kind\":";
    AppendJsonString(in.ColText(1), &j);
    j += fmt::format(",\"fingerprint\":\"{}\",\"fingerprint_bytes\":{},\"dev\":{},\"inode\":{}",
                     in.ColText(5), in.ColInt(6), in.ColInt(7), in.ColInt(8));
    j += fmt::format(",\"offset\":{},\"line\":{},\"max_event_time\":", in.ColInt(2), in.ColInt(3));
    int64_t t = in.ColInt(4);
    if (t == INT64_MIN) {
      j += "null";
    } else {
      std::string ts;
      AppendRfc3339(t, &ts);
      AppendJsonString(ts, &j);
    }
    j += "}";
  }
  j += "],\"outputs\":[";
  Stmt outs(db, "SELECT role, path, length FROM outputs ORDER BY role");
  first = true;
  while (outs.ok() && outs.Step() == SQLITE_ROW) {
    j += first ? "{\"role\":" : ",{\"role\":";
    first = false;
    AppendJsonString(outs.ColText(0), &j);
    j += ",\"path\":";
    AppendJsonString(outs.ColText(1), &j);
    j += fmt::format(",\"length\":{}}}", outs.ColInt(2));
  }
  j += "]}";
  return Status::Ok();
}

}  // namespace logtide
