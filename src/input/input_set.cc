#include "input/input_set.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "input/log_family.h"
#include "util/bytes.h"
#include "util/paths.h"

namespace logtide {
namespace {

constexpr uint64_t kFingerprintBytes = 4096;
constexpr uint64_t kTailBytes = 64;
// When this process started (before main), by the real-time clock of file times: a file made
// since was not there when the shell globbed the names it was given. The fine clock, not the
// coarse one file systems may stamp with: a coarse stamp lags the time, so a file made before
// the start never looks made after it (a kernel with fine-grained file times stamped a copy
// made just before the start later than a coarse start, and its warning went missing).
const struct timespec kProcessStart = [] {
  struct timespec t = {};
  ::clock_gettime(CLOCK_REALTIME, &t);
  return t;
}();

bool After(const struct timespec& a, const struct timespec& b) {
  return a.tv_sec != b.tv_sec ? a.tv_sec > b.tv_sec : a.tv_nsec > b.tv_nsec;
}

std::string HashHex(uint64_t h) { return fmt::format("{:016x}", h); }
std::string HashOf(std::string_view bytes) { return HashHex(XXH64(bytes.data(), bytes.size(), 0)); }

// What the file at `path` holds: its first n bytes (fewer if it is shorter; decompressed
// when it is compressed) and its size (kUnknownSize when compressed: finding it would mean
// decompressing the whole file).
bool Probe(const std::string& path, uint64_t n, std::string* head, uint64_t* size) {
  std::unique_ptr<LineReader> r;
  if (!LineReader::Open(path, 1 << 16, &r).ok() || !r->is_regular()) return false;
  if (!r->ReadAt(0, n, head).ok()) return false;
  *size = r->compressed() ? InputPosition::kUnknownSize : r->file_size();
  return true;
}

// "N bytes" or, when the size is unknown, "the bytes".
std::string Bytes(uint64_t size, uint64_t offset) {
  return size == InputPosition::kUnknownSize ? std::string("the bytes")
                                             : fmt::format("{} bytes", size - offset);
}

// Looks in the folder of `path` for the file `p` was read from: the same device and inode (a
// file renamed by a rotation stays in its folder) and the same first bytes (an inode is reused
// once its file is deleted). Sets its name (in the folder as p.name gives it) and size.
bool FindSameFile(const InputPosition& p, std::string* found, uint64_t* size) {
  const size_t slash = p.path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : p.path.substr(0, slash + 1);
  const size_t name_slash = p.name.rfind('/');
  const std::string shown_dir =
      name_slash == std::string::npos ? "" : p.name.substr(0, name_slash + 1);
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return false;
  bool ok = false;
  while (const dirent* e = ::readdir(d)) {
    if (static_cast<uint64_t>(e->d_ino) != p.ino) continue;
    struct stat st;
    if (::fstatat(::dirfd(d), e->d_name, &st, 0) != 0 ||
        static_cast<uint64_t>(st.st_dev) != p.dev || !S_ISREG(st.st_mode))
      continue;
    const std::string name = slash == std::string::npos ? std::string(e->d_name) : dir + e->d_name;
    std::string head;
    if (!Probe(name, p.fingerprint_len, &head, size) || HashOf(head) != p.fingerprint) continue;
    *found = shown_dir + e->d_name;
    ok = true;
    break;
  }
  ::closedir(d);
  return ok;
}

// The compressed copy a rotation's compress step makes of `path` (logrotate's compressext):
// whether `path` with one of these after it is a regular file now.
bool HasCompressedCopy(const std::string& path) {
  struct stat st;
  for (const char* ext : {".gz", ".zst"}) {
    if (::stat((path + ext).c_str(), &st) == 0 && S_ISREG(st.st_mode)) return true;
  }
  return false;
}

// Looks in the folder of `path` for a compressed copy of the file `p` was read from (the
// compress step of a rotation writes it, then removes the file): a gzip or zstd file whose name
// starts with p.name's, less a generation number (app.log of app.log.1: delaycompress writes
// app.log.1.gz and renames it to app.log.2.gz at once), and whose decompressed first bytes are
// p's. Sets its name (as p.name gives its folder).
bool FindCompressedCopy(const InputPosition& p, std::string* found) {
  if (p.fingerprint_len == 0) return false;  // no bytes to know it by
  const size_t slash = p.path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : p.path.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? p.path : p.path.substr(slash + 1);
  if (const size_t dot = base.rfind('.'); dot != std::string::npos && dot + 1 < base.size() &&
      base.find_first_not_of("0123456789", dot + 1) == std::string::npos)
    base.resize(dot + 1);
  const size_t name_slash = p.name.rfind('/');
  const std::string shown_dir =
      name_slash == std::string::npos ? "" : p.name.substr(0, name_slash + 1);
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return false;
  bool ok = false;
  while (const dirent* e = ::readdir(d)) {
    const std::string_view n(e->d_name);
    if (n.size() <= base.size() || n.substr(0, base.size()) != base) continue;
    if (!(n.ends_with(".gz") || n.ends_with(".zst"))) continue;
    std::string head;
    uint64_t size = 0;
    const std::string name = slash == std::string::npos ? std::string(n) : dir + e->d_name;
    if (!Probe(name, p.fingerprint_len, &head, &size) || size != InputPosition::kUnknownSize ||
        HashOf(head) != p.fingerprint)
      continue;
    *found = shown_dir + e->d_name;
    ok = true;
    break;
  }
  ::closedir(d);
  return ok;
}

// Looks in the folder of `path` for a plain copy of the file `p` was read from, made by a
// copytruncate rotation before it truncated that file in place: another regular file whose
// name starts with p.name's and whose first bytes are p's. Sets its name (as p.name gives its
// folder) and whether it was made after this process started (its birth time; when the file
// system keeps none, its last change).
bool FindPlainCopy(const InputPosition& p, std::string* found, bool* made_since_start) {
  if (p.fingerprint_len == 0) return false;  // no bytes to know it by
  const size_t slash = p.path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : p.path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? p.path : p.path.substr(slash + 1);
  const size_t name_slash = p.name.rfind('/');
  const std::string shown_dir =
      name_slash == std::string::npos ? "" : p.name.substr(0, name_slash + 1);
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return false;
  bool ok = false;
  while (const dirent* e = ::readdir(d)) {
    const std::string_view n(e->d_name);
    if (n.size() <= base.size() || n.substr(0, base.size()) != base) continue;
    const std::string name = slash == std::string::npos ? std::string(n) : dir + e->d_name;
    struct stat st;
    if (::stat(name.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    std::string head;
    uint64_t size = 0;
    if (!Probe(name, p.fingerprint_len, &head, &size) || size == InputPosition::kUnknownSize ||
        HashOf(head) != p.fingerprint)
      continue;
    *found = shown_dir + e->d_name;
    struct statx sx;
    struct timespec born = st.st_ctim;
    if (::statx(AT_FDCWD, name.c_str(), 0, STATX_BTIME, &sx) == 0 && (sx.stx_mask & STATX_BTIME))
      born = {static_cast<time_t>(sx.stx_btime.tv_sec), static_cast<long>(sx.stx_btime.tv_nsec)};
    *made_since_start = After(born, kProcessStart);
    ok = true;
    break;
  }
  ::closedir(d);
  return ok;
}

}  // namespace

void InputSet::Track::KeepHead(const char* data, uint64_t offset, uint64_t end) {
  if (offset == 0) {
    head.clear();
    tail_size = 0;
  }
  // Past the head (a state saved without its first bytes, by a version before this rule):
  // nothing to add to.
  if (offset > head.size()) return;
  const uint64_t to = std::min(end, kFingerprintBytes);
  if (to > head.size()) head.append(data + (head.size() - offset), to - head.size());
}

void InputSet::Track::KeepTail(const char* data, size_t n) {
  static_assert(sizeof(tail) >= 2 * kTailBytes);
  if (n >= kTailBytes) {
    std::memcpy(tail, data + n - kTailBytes, kTailBytes);
    tail_size = kTailBytes;
    return;
  }
  if (tail_size + n > sizeof(tail)) {  // keep the last kTailBytes - n, then append
    const size_t keep = std::min(tail_size, kTailBytes - n);
    std::memmove(tail, tail + tail_size - keep, keep);
    tail_size = keep;
  }
  std::memcpy(tail + tail_size, data, n);
  tail_size += n;
}

std::string_view InputSet::Track::Tail() const {
  const size_t n = std::min<size_t>(tail_size, kTailBytes);
  return std::string_view(tail + tail_size - n, n);
}

// Section "inputs", version 4: u32 inputs, per input: bytes name, bytes kind, bytes
// fingerprint, u64 fingerprint_len, u64 offset, u64 line, u64 id, bytes tail_hash, u64 dev,
// u64 ino, u8 rotated, u64 size, bytes path. Version 3 had i64 max_time where version 4 has
// the id, and i64 quiet_since at the end; its ids are the inputs' places, from 1.
bool DecodeInputPositions(std::string_view data, uint32_t version,
                          std::vector<InputPosition>* out) {
  if (version != 3 && version != InputSet::kVersion) return false;
  ByteReader r(data);
  const uint32_t n = r.U32();
  out->clear();
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    InputPosition p;
    p.name = r.Bytes();
    p.kind = r.Bytes();
    p.fingerprint = r.Bytes();
    p.fingerprint_len = r.U64();
    p.offset = r.U64();
    p.line = r.U64();
    if (version == 3) {
      p.max_time = r.I64();
      p.id = i + 1;
    } else {
      p.id = r.U64();
    }
    p.tail_hash = r.Bytes();
    p.dev = r.U64();
    p.ino = r.U64();
    const uint8_t rotated = r.U8();
    p.size = r.U64();
    if (rotated > 1) return false;
    p.rotated = rotated == 1;
    p.path = r.Bytes();
    if (version == 3) p.quiet_since = r.I64();
    if (p.kind != "file" && p.kind != "stdin") return false;
    if (p.id == 0) return false;
    for (const InputPosition& q : *out) {
      if (q.id == p.id) return false;
    }
    out->push_back(std::move(p));
  }
  return r.ok() && r.at_end();
}

Status InputSet::Open(const std::vector<std::string>& paths, Options options,
                      std::unique_ptr<InputSet>* out) {
  // A rotation step between a family's listing and its opens (a rename, a compressed copy
  // appearing or its original removed) is seen by listing again: the files are opened again
  // until a listing holds still while they are opened. A rotation's steps take milliseconds;
  // when they go on longer than this, the files last opened are read and the rotation's
  // remaining moves are matched by the state, as for names the shell's glob gave.
  constexpr int kAttempts = 200;
  for (int attempt = 1;; ++attempt) {
    InputNames names = ListInputNames(paths);
    std::unique_ptr<InputSet> set;
    Status s = OpenNames(names.names, options, &set);
    const bool last = attempt == kAttempts;
    if (!s.ok() && !last) {
      // A name of a family gone since the listing or the glob: decided on a listing that
      // holds still (a name copytruncate renamed is made again by its copy).
      const bool family = std::find(names.listed.begin(), names.listed.end(), true) !=
                          names.listed.end();
      bool moved = false;
      for (size_t i = 0; i < names.names.size() && family && !moved; ++i) {
        struct stat st;
        moved = names.names[i] != "-" && ::lstat(names.names[i].c_str(), &st) != 0;
      }
      if (moved) {
        ::usleep(1000);
        continue;
      }
    }
    if (!s.ok()) return s;
    if (last || set->Settled(paths, names)) {
      *out = std::move(set);
      return Status::Ok();
    }
    options = std::move(set->options_);
    ::usleep(1000);
  }
}

bool InputSet::Settled(const std::vector<std::string>& given, const InputNames& names) const {
  if (std::find(names.listed.begin(), names.listed.end(), true) == names.listed.end()) return true;
  if (ListInputNames(given).names != names.names) return false;
  for (size_t i = 0; i < names.names.size(); ++i) {
    // A name the glob gave and the listing lacks may be between a rotation's rename and the
    // copy made under it (copytruncate): it is waited for as long as a rotation step takes.
    if (tracks_[i].vanished) return false;
    if (!names.listed[i]) continue;
    struct stat st;
    if (::stat(names.names[i].c_str(), &st) != 0 ||
        static_cast<uint64_t>(st.st_dev) != readers_[i]->dev() ||
        static_cast<uint64_t>(st.st_ino) != readers_[i]->ino())
      return false;
  }
  return true;
}

Status InputSet::OpenNames(const std::vector<std::string>& paths, Options& options,
                           std::unique_ptr<InputSet>* out) {
  std::unique_ptr<InputSet> set(new InputSet());
  set->options_ = std::move(options);
  set->paths_ = paths;
  set->tracks_.resize(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    std::unique_ptr<LineReader> r;
    Status s = LineReader::Open(paths[i], set->options_.buffer_size, &r);
    struct stat st;
    if (!s.ok() && set->options_.defer_vanished && paths[i] != "-" &&
        ::lstat(paths[i].c_str(), &st) != 0 && errno == ENOENT) {
      r = LineReader::Vanished(paths[i]);
      set->tracks_[i].vanished = true;
      set->tracks_[i].rotated = true;  // at its (immediate) end it holds nothing back
      set->tracks_[i].open_error = s;
    } else if (!s.ok()) {
      options = std::move(set->options_);
      return s;
    }
    r->set_max_line_length(set->options_.max_line_length);
    set->readers_.push_back(std::move(r));
  }
  *out = std::move(set);
  return Status::Ok();
}

InputSet::~InputSet() {
  for (Track& t : tracks_) {
    if (t.hash != nullptr) XXH64_freeState(t.hash);
  }
}

void InputSet::TrackForCheckpoints() {
  for (size_t i = 0; i < readers_.size(); ++i) {
    if (readers_[i]->is_stdin() && tracks_[i].hash == nullptr) {
      tracks_[i].hash = XXH64_createState();
      XXH64_reset(tracks_[i].hash, 0);
      readers_[i]->set_hash_bytes(true);  // for the lines it drops (Line::hash_after)
    }
    tracks_[i].keep_bytes = !readers_[i]->is_stdin();
  }
  MarkGenerations();
  std::vector<size_t> files;
  for (size_t i = 0; i < readers_.size(); ++i) {
    if (!readers_[i]->is_stdin() && !tracks_[i].vanished) files.push_back(i);
  }
  DropCopies(files);
  AssignIds();
}

void InputSet::DropCopies(const std::vector<size_t>& fresh) {
  std::vector<std::string> heads(readers_.size());
  std::vector<bool> known(readers_.size(), false);
  const auto head = [&](size_t j) -> const std::string& {
    if (!known[j]) {
      known[j] = true;
      if (!readers_[j]->ReadAt(0, kFingerprintBytes, &heads[j]).ok()) heads[j].clear();
    }
    return heads[j];
  };
  const auto is_fresh = [&](size_t j) {
    return std::find(fresh.begin(), fresh.end(), j) != fresh.end();
  };
  // Whether new file a is read rather than new file b holding the same first bytes.
  const auto read_first = [&](size_t a, size_t b) {
    const LineReader& ra = *readers_[a];
    const LineReader& rb = *readers_[b];
    if (ra.compressed() != rb.compressed()) return !ra.compressed();
    if (!ra.compressed() && ra.file_size() != rb.file_size()) return ra.file_size() > rb.file_size();
    if (IsGenerationOf(a) != IsGenerationOf(b)) return !IsGenerationOf(a);
    return a < b;
  };
  for (size_t i : fresh) {
    Track& t = tracks_[i];
    if (t.duplicate || t.vanished || readers_[i]->is_stdin() || head(i).empty()) continue;
    for (size_t j = 0; j < readers_.size() && !t.duplicate; ++j) {
      if (j == i || tracks_[j].duplicate || tracks_[j].vanished || readers_[j]->is_stdin())
        continue;
      if (!head(j).starts_with(head(i))) continue;
      // The same first bytes, both new: one of them is read.
      if (head(j).size() == head(i).size() && is_fresh(j) && read_first(i, j)) continue;
      t.duplicate = true;
      t.rotated = true;  // at its (immediate) end it holds nothing back
      readers_[i]->SetAtEnd(0, 0);
    }
  }
}

void InputSet::Consumed(size_t i, const Line& line) {
  Track& t = tracks_[i];
  if (line.dropped) [[unlikely]] {
    // Its bytes are gone: the reader kept what is needed of them (its first bytes in data,
    // its last in tail, and under set_hash_bytes the hash of the input up to its end). A
    // fingerprint then holds the bytes read up to the kept first ones.
    static_assert(kTailBytes <= LineReader::kDroppedTail);
    if (t.hash != nullptr) XXH64_copyState(t.hash, line.hash_after);
    if (t.keep_bytes) {
      if (line.offset < kFingerprintBytes)
        t.KeepHead(line.data, line.offset, line.offset + line.size);
      t.KeepTail(line.tail.data(), line.tail.size());
    }
  } else {
    if (t.hash != nullptr) XXH64_update(t.hash, line.data, line.end_offset - line.offset);
    if (t.keep_bytes) {
      if (line.offset < kFingerprintBytes) t.KeepHead(line.data, line.offset, line.end_offset);
      t.KeepTail(line.data, line.end_offset - line.offset);
    }
  }
  t.offset = line.end_offset;
  t.line = line.number;
}

namespace {

void EncodeInputPosition(const InputPosition& p, ByteWriter* w) {
  w->Bytes(p.name);
  w->Bytes(p.kind);
  w->Bytes(p.fingerprint);
  w->U64(p.fingerprint_len);
  w->U64(p.offset);
  w->U64(p.line);
  w->U64(p.id);
  w->Bytes(p.tail_hash);
  w->U64(p.dev);
  w->U64(p.ino);
  w->U8(p.rotated ? 1 : 0);
  w->U64(p.size);
  w->Bytes(p.path);
}

}  // namespace

Status InputSet::PositionOf(size_t i, InputPosition* out) {
  LineReader& r = *readers_[i];
  const Track& t = tracks_[i];
  InputPosition p;
  p.name = paths_[i];
  p.offset = t.offset;
  p.line = t.line;
  p.id = t.id;
  if (r.is_stdin()) {
    p.kind = "stdin";
    p.fingerprint = HashHex(XXH64_digest(t.hash));
    p.fingerprint_len = t.offset;
  } else {
    p.kind = "file";
    p.path = AbsolutePath(paths_[i]);
    // The first bytes and those before the offset as they were read (Track::head, tail),
    // not as the file holds them now: a file truncated since (copytruncate) is still known by
    // the bytes that were read from it, which its copy starts with.
    p.fingerprint = HashOf(t.head);
    p.fingerprint_len = t.head.size();
    p.tail_hash = !t.fixed_tail_hash.empty() ? t.fixed_tail_hash : HashOf(t.Tail());
    p.dev = r.dev();
    p.ino = r.ino();
    p.rotated = t.rotated;
    // A compressed file's decompressed size is known once it was read to its end.
    p.size = !r.compressed() ? std::max(r.file_size(), t.offset)
             : t.ended      ? t.offset
                            : InputPosition::kUnknownSize;
  }
  *out = std::move(p);
  return Status::Ok();
}

void InputSet::Follow(size_t i, std::function<void(const std::string&)> warn) {
  readers_[i]->set_follow(std::move(warn), [this, i] { FollowedRotation(i); });
}

// The file input i followed was rotated away and read to its end; the reader goes on with the
// new file at its path. The old one is kept in the state as a rotated file read to its end, so
// that a later run naming it (app.log*) finds it done instead of reading it as new.
void InputSet::FollowedRotation(size_t i) {
  InputPosition p;
  Status s = PositionOf(i, &p);
  if (!s.ok()) {
    if (follow_error_.ok()) follow_error_ = s;
  } else {
    p.rotated = true;
    p.size = p.offset;
    p.origin = static_cast<int>(i);
    carried_.push_back(std::move(p));
  }
  Track& t = tracks_[i];
  t.id = next_id_++;  // the file at its path now is another input
  t.offset = 0;
  t.line = 0;
  t.rotated = false;
  t.ended = false;
  t.fixed_tail_hash.clear();
  t.head.clear();
  t.tail_size = 0;
}

Status InputSet::Save(std::string* data) {
  if (!follow_error_.ok()) return follow_error_;
  ByteWriter w(data);
  uint32_t n = static_cast<uint32_t>(carried_.size());
  for (const Track& t : tracks_) n += t.duplicate || t.vanished ? 0 : 1;
  w.U32(n);
  for (size_t i = 0; i < readers_.size(); ++i) {
    if (tracks_[i].duplicate || tracks_[i].vanished) continue;
    InputPosition p;
    Status s = PositionOf(i, &p);
    if (!s.ok()) return s;
    EncodeInputPosition(p, &w);
  }
  for (const InputPosition& p : carried_) EncodeInputPosition(p, &w);
  return Status::Ok();
}

uint64_t InputSet::id(int input) const {
  const Track& t = tracks_[static_cast<size_t>(input)];
  return t.duplicate || t.vanished ? 0 : t.id;
}

// In the order Save writes them.
void InputSet::SavedIds(std::vector<Saved>* out) const {
  out->clear();
  for (size_t i = 0; i < tracks_.size(); ++i) {
    if (tracks_[i].duplicate || tracks_[i].vanished) continue;
    out->push_back({tracks_[i].id, static_cast<int>(i)});
  }
  for (const InputPosition& p : carried_) out->push_back({p.id, p.origin});
}

bool InputSet::LegacyTimes(uint64_t id, int64_t* max_time, int64_t* quiet_since) const {
  for (const InputPosition& p : legacy_) {
    if (p.id != id) continue;
    *max_time = p.max_time;
    *quiet_since = p.quiet_since;
    return true;
  }
  return false;
}

// Every input without an id (new to the state) gets the next one.
void InputSet::AssignIds() {
  for (Track& t : tracks_) {
    if (t.id == 0) t.id = next_id_++;
  }
}

Status InputSet::Load(std::string_view data, uint32_t version) {
  std::vector<InputPosition> saved;
  if (!DecodeInputPositions(data, version, &saved))
    return Status::Corruption("it does not decode");
  legacy_.clear();
  if (version < kVersion) legacy_ = saved;
  next_id_ = 1;
  for (const InputPosition& p : saved) next_id_ = std::max(next_id_, p.id + 1);
  for (Track& t : tracks_) t.id = 0;
  std::vector<bool> used(saved.size(), false);
  std::vector<size_t> fresh;  // inputs that match no saved one
  // The copies TrackForCheckpoints marked as a new state would see them: decided again below,
  // once the saved inputs are matched.
  for (size_t i = 0; i < readers_.size(); ++i) {
    Track& t = tracks_[i];
    if (!t.duplicate) continue;
    t.duplicate = t.rotated = false;
    if (Status s = readers_[i]->Rewind(); !s.ok()) return s;
  }
  for (size_t i = 0; i < readers_.size(); ++i) {
    if (tracks_[i].vanished) continue;
    int found = -1;
    Status s = Match(i, saved, &used, &found);
    if (!s.ok()) return s;
    if (found < 0) {  // a new input: read from its start
      if (!readers_[i]->is_stdin()) fresh.push_back(i);
      continue;
    }
    used[static_cast<size_t>(found)] = true;
    const InputPosition& p = saved[static_cast<size_t>(found)];
    Track& t = tracks_[i];
    t.offset = t.start_offset = t.short_copy_size != Track::kNoSize ? t.short_copy_size : p.offset;
    t.line = p.line;
    t.id = p.id;
    t.rotated = p.kind == "file" && (p.rotated || RenamedAway(i, p));
  }
  MarkGenerations();
  // A new file whose first bytes are those of a file another input continues is a copy of it:
  // logrotate's compress writes app.log.2.gz whole before it removes app.log.2, and a run in
  // between sees both. The copy is neither read nor saved; the next run finds the saved
  // position under its name once the original is gone.
  for (size_t i : fresh) {
    std::string head;
    for (size_t k = 0; k < saved.size() && !tracks_[i].duplicate; ++k) {
      const InputPosition& p = saved[k];
      if (!used[k] || p.kind != "file" || p.fingerprint_len == 0) continue;
      Status s = readers_[i]->ReadAt(0, p.fingerprint_len, &head);
      if (!s.ok()) return s;
      if (head.size() == p.fingerprint_len && HashOf(head) == p.fingerprint) {
        tracks_[i].duplicate = true;
        tracks_[i].rotated = true;  // at its (immediate) end it holds nothing back
        readers_[i]->SetAtEnd(0, 0);
      }
    }
  }
  // A new file whose first bytes begin those of another input of this run: a copy being made,
  // or made since (copytruncate's app.log.1 beside app.log, compress's app.log.1.gz beside
  // app.log.1), read once, not twice.
  DropCopies(fresh);
  // A file gone since the shell named it is no error when every position saved under its
  // name is continued by another input of this run or was rotated away and read to its end; or
  // when a compressed copy of it is there now (app.log.2 -> app.log.2.gz: the rotation's
  // compress step ran between the glob and the open), which holds its content for the run that
  // names it; or when no run read a file under its name and it is a compressed generation of
  // another input (app.log.1.gz beside app.log: logrotate's delaycompress writes it, then
  // renames it to app.log.2.gz), whose content earlier runs read under the names it had before,
  // or the run naming the generation it became reads. (A plain name keeps existing through a
  // rotation's renames: one that is gone and never read, app.log.9, is still an error.) A rotation is then under way: what it moved is kept,
  // not reported (Unmatched).
  racing_rotation_ = false;
  for (size_t i = 0; i < readers_.size(); ++i) {
    Track& t = tracks_[i];
    if (!t.vanished) continue;
    racing_rotation_ = true;
    const std::string path = AbsolutePath(paths_[i]);
    bool known = false, accounted = true;
    for (size_t k = 0; k < saved.size(); ++k) {
      const InputPosition& p = saved[k];
      if (p.kind != "file" || p.path != path) continue;
      known = true;
      std::string copy;
      uint64_t size = 0;
      accounted = accounted && (used[k] || (p.rotated && p.offset >= p.size) ||
                                FindSameFile(p, &copy, &size) || FindCompressedCopy(p, &copy));
    }
    const std::string_view name = paths_[i];
    const bool compressed_name = name.ends_with(".gz") || name.ends_with(".zst");
    if ((known && accounted) || HasCompressedCopy(path) ||
        (!known && compressed_name && IsGenerationOf(i)))
      t.open_error = Status::Ok();
    // A generation no run read under its name may hold bytes no run read, which the run naming
    // the generation it became reads: it holds the watermark back (as a new, empty log does)
    // so that they are not late then.
    if (!known) t.rotated = false;
  }
  // Otherwise the run fails as it would have at opening the file: before any warning about
  // the saved files.
  if (Status s = VanishedError(); !s.ok()) return s;
  AssignIds();
  carried_.clear();
  for (size_t k = 0; k < saved.size(); ++k) {
    if (used[k]) continue;
    Status s = Unmatched(saved[k]);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

void InputSet::MarkGenerations() {
  for (size_t i = 0; i < readers_.size(); ++i) {
    if (!readers_[i]->is_stdin() && !tracks_[i].vanished && IsGenerationOf(i))
      tracks_[i].rotated = true;
  }
}

bool InputSet::IsGenerationOf(size_t i) const {
  const std::string& name = paths_[i];
  for (size_t k = 0; k < paths_.size(); ++k) {
    const std::string& log = paths_[k];
    if (k == i || tracks_[k].vanished || log == "-" || log.size() >= name.size()) continue;
    if (IsGenerationName(name, log)) return true;
  }
  return false;
}

Status InputSet::VanishedError() const {
  for (const Track& t : tracks_) {
    if (t.vanished && !t.open_error.ok()) return t.open_error;
  }
  return Status::Ok();
}

bool InputSet::RenamedAway(size_t i, const InputPosition& p) const {
  // By absolute path: the same file named from another directory is not renamed.
  if (p.path == AbsolutePath(paths_[i])) return false;
  struct stat st;
  if (::stat(p.path.c_str(), &st) != 0) return true;  // its old name is gone
  return static_cast<uint64_t>(st.st_dev) != readers_[i]->dev() ||
         static_cast<uint64_t>(st.st_ino) != readers_[i]->ino();
}

Status InputSet::Unmatched(const InputPosition& p) {
  if (p.kind != "file") return Status::Ok();
  const auto warn = [&](const std::string& m) {
    if (options_.warn) options_.warn(m);
  };
  // Compressed by a rotation and removed: kept, so that the run naming the compressed copy goes
  // on from here. Not among this run's inputs, its bytes past the offset are not read: said,
  // unless a rotation was under way while this run started (an input the glob named is gone),
  // which made the copy after the glob; the next run names it.
  const auto keep_for_compressed_copy = [&] {
    std::string copy;
    if (!FindCompressedCopy(p, &copy)) return false;
    carried_.push_back(p);
    if (!racing_rotation_ && !(p.rotated && p.offset >= p.size)) {
      warn(fmt::format(
          "the file earlier runs read as {} was compressed to {}, which is not among this run's "
          "inputs: what it holds after byte {}, where earlier runs stopped, was not read; name "
          "every generation of the log (app.log*)",
          p.name, copy, p.offset));
    }
    return true;
  };
  struct stat st;
  const bool there = ::stat(p.path.c_str(), &st) == 0;
  if (there && static_cast<uint64_t>(st.st_dev) == p.dev &&
      static_cast<uint64_t>(st.st_ino) == p.ino) {
    std::string head;
    uint64_t size = 0;
    if (!Probe(p.path, p.fingerprint_len, &head, &size) || size < p.offset ||
        HashOf(head) != p.fingerprint) {
      // Compressed by a rotation and removed, its inode reused by the file at its path now (a
      // copytruncate rotation's new copy): kept for the run that names the compressed copy,
      // which would otherwise read it again from its start.
      if (keep_for_compressed_copy()) return Status::Ok();
      // Rotated away and read to its end: nothing of it was lost.
      if (p.rotated && p.offset >= p.size) return Status::Ok();
      // Copied and truncated in place (copytruncate) while the copy is not among this run's
      // inputs: kept for the run that names the copy. A copy made after this process started
      // came after the glob that named its inputs (the rotation raced the run): the next run
      // names it. Otherwise it is said (at every run while the job does not name the copy).
      std::string copy;
      bool since_start = false;
      if (FindPlainCopy(p, &copy, &since_start)) {
        carried_.push_back(p);
        if (!racing_rotation_ && !since_start) {
          warn(fmt::format(
              "{} was truncated in place after a copy of it was made to {}, which is not among "
              "this run's inputs: what the copy holds after byte {}, where earlier runs "
              "stopped, was not read; name every generation of the log (app.log*)",
              p.name, copy, p.offset));
        }
        return Status::Ok();
      }
      warn(fmt::format(
          "{} holds other content than earlier runs read (truncated and written again, as by a "
          "copytruncate rotation, or a new file), and no input of this run holds the earlier "
          "content: what was written to it after byte {} was not read; name every generation "
          "of the log (app.log*)",
          p.name, p.offset));
      return Status::Ok();  // its content is gone
    }
    // A compressed file's size is unknown: it had bytes left unless the last run read it to
    // its end.
    if (size == InputPosition::kUnknownSize ? p.size == InputPosition::kUnknownSize
                                            : size > p.offset) {
      if (options_.allow_missing_inputs) {
        warn(fmt::format("{} is not among this run's inputs: {} of it after byte {}, where "
                         "earlier runs stopped, are not read in this run (--allow-missing-inputs; "
                         "named again, it goes on from there)",
                         p.name, Bytes(size, p.offset), p.offset));
        carried_.push_back(p);
        return Status::Ok();
      }
      return Status::Refused(fmt::format(
          "{} is not among this run's inputs, but {} of it after byte {}, where earlier runs "
          "stopped, were never read; nothing was written. Name it again to go on reading it, "
          "give --allow-missing-inputs to leave it behind, or start a new --state file",
          p.name, Bytes(size, p.offset), p.offset));
    }
    carried_.push_back(p);  // read to its end: kept, so naming it again goes on from there
    return Status::Ok();
  }
  // A file saved empty is known by its device and inode only, and those are reused once it is
  // deleted: not found among this run's inputs, there is nothing to say of it. Whatever was
  // written to it since is read from its start by the run that names the file holding it.
  if (p.offset == 0 && p.fingerprint_len == 0) return Status::Ok();
  // Kept while it can be found, so that naming it again goes on from where it was left.
  std::string moved_to;
  uint64_t size = 0;
  if (FindSameFile(p, &moved_to, &size)) {
    carried_.push_back(p);
    // Renamed by a rotation under way since this run's glob: the next run names it.
    if (!racing_rotation_ && (size == InputPosition::kUnknownSize
                                  ? p.size == InputPosition::kUnknownSize
                                  : size > p.offset)) {
      warn(fmt::format(
          "the file earlier runs read as {} was renamed to {}, which is not among this run's "
          "inputs: {} of it after byte {}, where earlier runs stopped, were not read; name "
          "every generation of the log (app.log*)",
          p.name, moved_to, Bytes(size, p.offset), p.offset));
    }
    return Status::Ok();
  }
  // Compressed by a rotation (app.log.2 -> app.log.2.gz) and removed.
  if (keep_for_compressed_copy()) return Status::Ok();
  if (p.size > p.offset) {
    warn(fmt::format(
        "the file earlier runs read as {} is gone (rotated away or deleted) with {} of it "
        "after byte {} never read",
        p.name, Bytes(p.size, p.offset), p.offset));
  } else if (!p.rotated) {
    warn(fmt::format(
        "the file earlier runs read as {} (to byte {}) is not among this run's inputs and was "
        "not found (rotated away or deleted): what was written to it after the last run was "
        "not read; name every generation of the log (app.log*)",
        p.name, p.offset));
  }
  return Status::Ok();
}

// Finds input i's saved position: a file by the hash of its first bytes (so a rotated file is
// found under its new name), standard input by the hash of the bytes already consumed. Moves
// the reader to the position found.
Status InputSet::Match(size_t i, const std::vector<InputPosition>& saved, std::vector<bool>* used,
                       int* found) {
  LineReader& r = *readers_[i];
  Track& t = tracks_[i];
  *found = -1;
  Status s;
  if (r.is_stdin()) {
    for (size_t k = 0; k < saved.size() && *found < 0; ++k) {
      if (!(*used)[k] && saved[k].kind == "stdin") *found = static_cast<int>(k);
    }
    if (*found < 0) return Status::Ok();
    const InputPosition& p = saved[static_cast<size_t>(*found)];
    s = r.SkipTo(p.offset, p.line,
                 [&](std::string_view b) { XXH64_update(t.hash, b.data(), b.size()); });
    if (!s.ok()) return s;
    if (HashHex(XXH64_digest(t.hash)) != p.fingerprint) {
      return Status::Refused(fmt::format(
          "standard input is not the stream the state file {} was made from: its first {} "
          "bytes differ; nothing was written",
          options_.state_path, p.offset));
    }
    return Status::Ok();
  }
  std::string head, found_head;
  for (size_t k = 0; k < saved.size(); ++k) {
    const InputPosition& p = saved[k];
    if ((*used)[k] || p.kind != "file") continue;
    // A file saved empty has no first bytes to know it by (they would match any file): only
    // the same device and inode is that file.
    if (p.fingerprint_len == 0 && !(p.dev == r.dev() && p.ino == r.ino())) continue;
    if (!r.compressed() && p.fingerprint_len > r.file_size()) continue;
    if (!(s = r.ReadAt(0, p.fingerprint_len, &head)).ok()) return s;
    if (head.size() < p.fingerprint_len || HashOf(head) != p.fingerprint) continue;
    // Among files that share their first bytes, the same file (device and inode) wins, then
    // the same name. A file saved empty matches by its device and inode alone, which a file
    // made after it was deleted may have (a rotation's compressed copy of another
    // generation): first bytes that match a saved file's win over that.
    auto rank = [&](const InputPosition& q) {
      return (q.fingerprint_len > 0 ? 4 : 0) + (q.dev == r.dev() && q.ino == r.ino() ? 2 : 0) +
             (q.name == paths_[i] ? 1 : 0);
    };
    if (*found < 0 || rank(p) > rank(saved[static_cast<size_t>(*found)])) {
      *found = static_cast<int>(k);
      found_head = head;
    }
  }
  if (*found < 0) return Status::Ok();  // a new file: read from its start
  const InputPosition& p = saved[static_cast<size_t>(*found)];
  // The first bytes as read now, equal to those saved: the head this run goes on from.
  t.head = std::move(found_head);
  std::string problem;
  if (r.compressed() && p.rotated && p.size != InputPosition::kUnknownSize &&
      p.offset >= p.size) {
    // A compressed generation of a rotated log, read to its end by an earlier run: nothing
    // more will come, so it is not decompressed again.
    r.SetAtEnd(p.offset, p.line);
    t.fixed_tail_hash = p.tail_hash;
    return Status::Ok();
  }
  if (r.compressed()) {
    if (!(s = SkipCompressed(i, p, &problem)).ok()) return s;
    if (problem.empty()) return Status::Ok();
  } else if (r.file_size() < p.offset && TruncatedCopy(i, p)) {
    // A copytruncate copy made before an earlier run read on in the log: that run read all it
    // holds, and more, from the log itself.
    if (options_.warn) {
      options_.warn(fmt::format(
          "{} (a copy of {} that a copytruncate rotation made, {} bytes) is shorter than the {} "
          "bytes earlier runs read from {}: the writer appended to it between the copy and the "
          "truncation, and what it appended there after byte {}, if anything, was lost by the "
          "rotation",
          r.name(), p.name, r.file_size(), p.offset, p.name, p.offset));
    }
    // Saved as read to its own end, so that later runs know it as it is.
    const uint64_t size = r.file_size();
    std::string tail;
    if (!(s = r.ReadAt(size - std::min(size, kTailBytes), std::min(size, kTailBytes), &tail)).ok())
      return s;
    r.SetAtEnd(size, p.line);
    t.tail_size = 0;
    t.KeepTail(tail.data(), tail.size());
    t.short_copy_size = size;
    return Status::Ok();
  } else if (r.file_size() < p.offset) {
    problem = fmt::format(
        "{} is {} bytes long, shorter than the {} bytes already read from it: it was truncated "
        "or replaced",
        r.name(), r.file_size(), p.offset);
  } else {
    std::string tail;
    uint64_t from = p.offset - std::min(p.offset, kTailBytes);
    if (!(s = r.ReadAt(from, p.offset - from, &tail)).ok()) return s;
    if (HashOf(tail) != p.tail_hash) {
      problem = fmt::format(
          "{}: the bytes before offset {}, where the last run stopped, have changed: the file "
          "was replaced or rewritten",
          r.name(), p.offset);
    }
    // The bytes before the offset as read now, equal to those saved: the tail this run goes
    // on from.
    t.tail_size = 0;
    t.KeepTail(tail.data(), tail.size());
  }
  if (!problem.empty()) {
    if (!options_.reread_replaced) {
      return Status::Refused(
          problem + "; nothing was written (--reread-replaced reads such a file from its start)");
    }
    if (options_.warn) options_.warn(problem + "; reading it from its start (--reread-replaced)");
    *found = -1;
    t.head.clear();
    t.tail_size = 0;
    return r.compressed() ? r.Rewind() : Status::Ok();
  }
  return r.SkipTo(p.offset, p.line, [](std::string_view) {});
}

bool InputSet::TruncatedCopy(size_t i, const InputPosition& p) {
  LineReader& r = *readers_[i];
  if (r.compressed() || (p.dev == r.dev() && p.ino == r.ino()) || p.fingerprint_len == 0)
    return false;
  struct stat st;
  if (::stat(p.path.c_str(), &st) != 0 || static_cast<uint64_t>(st.st_dev) != p.dev ||
      static_cast<uint64_t>(st.st_ino) != p.ino)
    return false;
  std::string head;
  uint64_t size = 0;
  if (Probe(p.path, p.fingerprint_len, &head, &size) && size >= p.offset &&
      HashOf(head) == p.fingerprint)
    return false;
  // The log was truncated, so its copy is whole now: its size then, not when it was opened.
  r.RefreshSize();
  return r.file_size() < p.offset;
}

Status InputSet::SkipCompressed(size_t i, const InputPosition& p, std::string* problem) {
  LineReader& r = *readers_[i];
  Track& t = tracks_[i];
  t.tail_size = 0;
  uint64_t reached = p.offset;
  Status s = r.SkipTo(p.offset, p.line,
                      [&](std::string_view b) { t.KeepTail(b.data(), b.size()); }, &reached);
  if (!s.ok() && reached < p.offset) {
    *problem = fmt::format(
        "{} decompresses to {} bytes, fewer than the {} bytes already read from it: it was "
        "truncated or replaced",
        r.name(), reached, p.offset);
    return Status::Ok();
  }
  if (!s.ok()) return s;
  if (HashOf(t.Tail()) != p.tail_hash) {
    *problem = fmt::format(
        "{}: the bytes before offset {}, where the last run stopped, have changed: the file "
        "was replaced or rewritten",
        r.name(), p.offset);
  }
  return Status::Ok();
}

void InputSet::DescribeSection(StateCodec* c) {
  const uint64_t n = c->List("inputs");
  for (uint64_t i = 0; i < n && c->ok(); ++i) {
    c->Object("");
    c->Bytes("name");
    c->Bytes("kind");
    c->Bytes("fingerprint");
    c->U64("fingerprint_length");
    c->U64("offset");
    c->U64("line");
    c->U64("id");
    c->Bytes("tail_hash");
    c->U64("dev");
    c->U64("ino");
    c->Bool("rotated");
    c->U64("size");
    c->Bytes("path");
    c->End();
  }
  c->End();
}

}  // namespace logtide
