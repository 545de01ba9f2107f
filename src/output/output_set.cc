#include "output/output_set.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/bytes.h"

namespace logtide {

// Section "outputs", version 1: u32 outputs, per open output: bytes role, bytes path,
// u64 committed length.
bool DecodeOutputPositions(std::string_view data, std::vector<OutputPosition>* out) {
  ByteReader r(data);
  const uint32_t n = r.U32();
  out->clear();
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    OutputPosition o;
    o.role = r.Bytes();
    o.path = r.Bytes();
    o.length = r.U64();
    out->push_back(std::move(o));
  }
  return r.ok() && r.at_end();
}

Status OutputSet::Open() {
  for (int i = 0; i < 3; ++i) {
    if (paths_[i].empty()) continue;
    Status s;
    if (resumed_) {
      s = files_[i].OpenResume(paths_[i], committed_[i]);
    } else if (paths_[i] == "-" && with_state_) {
      // A new job writing to a regular file through '>>': keep what the file already holds.
      struct stat st;
      const uint64_t size = ::fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode)
                                ? static_cast<uint64_t>(st.st_size)
                                : 0;
      s = files_[i].OpenResume(paths_[i], size);
    } else {
      s = files_[i].Open(paths_[i]);
    }
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status OutputSet::Sync(bool durable) {
  for (OutputFile& f : files_) {
    if (!f.is_open()) continue;
    Status s = f.Sync(durable);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status OutputSet::Close() {
  Status first;
  for (OutputFile& f : files_) {
    Status s = f.Close();
    if (first.ok() && !s.ok()) first = s;
  }
  return first;
}

void OutputSet::set_write_budget(std::atomic<int64_t>* budget) {
  for (OutputFile& f : files_) f.set_write_budget(budget);
}

Status OutputSet::Save(std::string* data, std::vector<StateOp>*, bool) {
  ByteWriter w(data);
  uint32_t n = 0;
  for (const OutputFile& f : files_) n += f.is_open() ? 1 : 0;
  w.U32(n);
  for (int i = 0; i < 3; ++i) {
    if (!files_[i].is_open()) continue;
    w.Bytes(kRoles[i]);
    w.Bytes(paths_[i]);
    w.U64(files_[i].bytes_written());
  }
  return Status::Ok();
}

Status OutputSet::Load(std::string_view data, const WindowRows&) {
  std::vector<OutputPosition> saved;
  if (!DecodeOutputPositions(data, &saved)) return Status::Corruption("it does not decode");
  resumed_ = true;
  for (const OutputPosition& o : saved) {
    for (int i = 0; i < 3; ++i) {
      if (o.role == kRoles[i]) committed_[i] = o.length;
    }
  }
  return Status::Ok();
}

}  // namespace logtide
