#include "output/output_set.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "util/bytes.h"
#include "util/paths.h"

namespace logtide {

namespace {

std::string TailHash(std::string_view bytes) {
  return fmt::format("{:016x}", XXH64(bytes.data(), bytes.size(), 0));
}

}  // namespace

// Section "outputs", version 2: u32 outputs, per open output: bytes role, bytes path,
// u64 committed length, bytes absolute path, bytes tail hash.
bool DecodeOutputPositions(std::string_view data, std::vector<OutputPosition>* out) {
  ByteReader r(data);
  const uint32_t n = r.U32();
  out->clear();
  for (uint32_t i = 0; i < n && r.ok(); ++i) {
    OutputPosition o;
    o.role = r.Bytes();
    o.path = r.Bytes();
    o.length = r.U64();
    o.absolute = r.Bytes();
    o.tail_hash = r.Bytes();
    out->push_back(std::move(o));
  }
  return r.ok() && r.at_end();
}

Status OutputSet::Open() {
  for (int i = 0; i < 3; ++i) {
    if (paths_[i].empty()) continue;
    Status s;
    if (resumed_ && fresh_[i]) {
      struct stat st;
      if (!overwrite_ && paths_[i] != "-" && ::stat(paths_[i].c_str(), &st) == 0 &&
          st.st_size > 0) {
        return Status::Refused(fmt::format(
            "{} already holds {} bytes, and --change-outputs starts it as a new output of the "
            "job; nothing was written. Give --overwrite to replace them, or write elsewhere",
            paths_[i], static_cast<uint64_t>(st.st_size)));
      }
      s = files_[i].Open(paths_[i]);
    } else if (resumed_) {
      s = files_[i].OpenResume(paths_[i], committed_[i]);
      // A pipe is not read back (its tail stays empty): nothing to check it by.
      const bool read_back = committed_[i] == 0 || !files_[i].tail().empty();
      if (s.ok() && read_back && TailHash(files_[i].tail()) != tail_hash_[i]) {
        return Status::Refused(fmt::format(
            "{} is not the file this job wrote: its bytes before offset {}, where the last run "
            "stopped, differ (it was replaced or edited); nothing was written",
            files_[i].name(), committed_[i]));
      }
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

Status OutputSet::Save(std::string* data) {
  ByteWriter w(data);
  uint32_t n = 0;
  for (const OutputFile& f : files_) n += f.is_open() ? 1 : 0;
  w.U32(n);
  for (int i = 0; i < 3; ++i) {
    if (!files_[i].is_open()) continue;
    w.Bytes(kRoles[i]);
    w.Bytes(paths_[i]);
    w.U64(files_[i].bytes_written());
    w.Bytes(paths_[i] == "-" ? std::string("-") : AbsolutePath(paths_[i]));
    w.Bytes(TailHash(files_[i].tail()));
  }
  return Status::Ok();
}

Status OutputSet::Load(std::string_view data, uint32_t) {
  std::vector<OutputPosition> saved;
  if (!DecodeOutputPositions(data, &saved)) return Status::Corruption("it does not decode");
  resumed_ = true;
  // The outputs must be the job's: the same ones, at the same places. An output added on
  // resume would get only what comes after, one dropped would miss it.
  std::string differs;
  for (int i = 0; i < 3; ++i) {
    const OutputPosition* o = nullptr;
    for (const OutputPosition& s : saved) {
      if (s.role == kRoles[i]) o = &s;
    }
    const std::string flag = i == 0 ? "--output" : fmt::format("--{}", kRoles[i]);
    const std::string here =
        paths_[i].empty() ? "" : paths_[i] == "-" ? std::string("-") : AbsolutePath(paths_[i]);
    if (o == nullptr && !here.empty()) {
      differs += fmt::format("; {} {} is new", flag, paths_[i]);
      fresh_[i] = true;
    } else if (o != nullptr && here.empty()) {
      differs += fmt::format("; {} {} is missing", flag, o->path);
    } else if (o != nullptr && o->absolute != here) {
      differs += fmt::format("; {} was {}, now {}", flag, o->path, paths_[i]);
      fresh_[i] = true;
    }
    if (o != nullptr && !fresh_[i]) {
      committed_[i] = o->length;
      tail_hash_[i] = o->tail_hash;
    }
  }
  if (!differs.empty() && change_) {
    if (warn_) {
      warn_(fmt::format("the outputs differ from the job's{} (--change-outputs: a new or moved "
                        "output gets only what this run and later ones write)",
                        differs));
    }
  } else if (!differs.empty()) {
    return Status::Refused(fmt::format(
        "the outputs differ from the job's{}: nothing was written. Resume with the same "
        "outputs, give --change-outputs to take these as the job's from now on, or start a new "
        "--state file",
        differs));
  }
  return Status::Ok();
}

void OutputSet::DescribeSection(StateCodec* c) {
  const uint64_t n = c->List("outputs");
  for (uint64_t i = 0; i < n && c->ok(); ++i) {
    c->Object("");
    c->Bytes("role");
    c->Bytes("path");
    c->U64("length");
    c->Bytes("absolute_path");
    c->Bytes("tail_hash");
    c->End();
  }
  c->End();
}

}  // namespace logtide
