// The job's inputs as a set: their readers, how far each was processed, and their identity
// across runs (a checkpoint component, section "inputs"). A file is known by a hash of its
// first bytes, so a rotated file is found under its new name, and by a hash of the bytes
// just before its offset, so a file rewritten under the same name is noticed; standard input
// by a hash of every byte consumed. Both hashes of a file are of its bytes as they were read
// (kept as they are consumed), never read again from the file when a checkpoint saves them: a
// log truncated in place during a run (copytruncate) is saved as what was read from it, which
// its copy starts with, so the next run goes on in the copy and reads the truncated log as a
// new file. A compressed file is known by its decompressed bytes, so a log compressed after a
// run (app.log.1 -> app.log.2.gz) is the same input.
//
// Rotation: a file found under another name than it was last read under, whose old name now
// holds another file or none, was renamed away by a log rotation. Nothing more will be written
// to it, so its end is final (rotated(i)), in this run and every later one. A file the state
// tracks that is not among the inputs any more while bytes of it were left unread is reported
// (or, still at its path, refused), and kept in the state while it can be found.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "input/line_reader.h"
#include "input/log_family.h"
#include "state/checkpoint.h"
#include "util/state_codec.h"
#include "util/status.h"

struct XXH64_state_s;

namespace logtide {

// Where one input stood at a checkpoint.
struct InputPosition {
  std::string name;         // as given on the command line ("-" for stdin)
  std::string path;         // files: the absolute path (util/paths.h) of that name
  std::string kind;         // "file" or "stdin"
  std::string fingerprint;  // files: hash of the first fingerprint_len bytes as read (those
                            // consumed, up to 4096, or more that a resumed run matched);
                            // stdin: of all consumed bytes
  uint64_t fingerprint_len = 0;
  uint64_t offset = 0;           // byte offset just past the last processed line
  uint64_t line = 0;             // lines processed
  uint64_t id = 0;               // stays with the input across runs (InputIds); version 4
  std::string tail_hash;         // files: hash of the bytes just before `offset`, as read
  uint64_t dev = 0;              // files: device and inode, a hint when several files match
  uint64_t ino = 0;
  bool rotated = false;          // files: renamed away by a rotation (InputSet::rotated)
  uint64_t size = 0;             // files: the file's size when saved (decompressed; compressed
                                 // files: kUnknownSize unless read to their end)
  static constexpr uint64_t kUnknownSize = UINT64_MAX;
  // Up to version 3 only (now in the "watermark" and "idleness" sections): the largest event
  // time read, and the wall-clock time of its last line or since it was first read without
  // one (INT64_MIN: none).
  int64_t max_time = INT64_MIN;
  int64_t quiet_since = INT64_MIN;
  // In this run only, not saved: the input it was (a followed file rotated away), or -1.
  int origin = -1;
};

// Decodes an "inputs" section of `version` (3 or 4; in version 3, an input's id is its place in
// the section, from 1). Returns false when it is damaged.
bool DecodeInputPositions(std::string_view data, uint32_t version,
                          std::vector<InputPosition>* out);

class InputSet final : public CheckpointComponent, public InputIds {
 public:
  struct Options {
    size_t buffer_size = 1 << 20;
    size_t max_line_length = LineReader::kDefaultMaxLineLength;  // LineReader::set_max_line_length
    bool reread_replaced = false;  // a truncated or replaced file is read from its start
    bool allow_missing_inputs = false;    // a file left off with unread bytes: a warning, not refused
    // A file that does not exist when opened (a generation a rotation removed after the
    // shell's glob named it) is not an error yet: Load accepts it when the state shows where
    // its content went, and VanishedError() returns the error otherwise.
    bool defer_vanished = false;
    std::string state_path;        // for messages
    // Receives warnings (an input read again from its start).
    std::function<void(const std::string&)> warn;
  };

  // Opens every path ("-" is standard input). A log named with a generation of it is opened
  // with its family as its folder holds it when it is opened (log_family.h), so the inputs
  // may be other names, and more or fewer, than `paths`.
  static Status Open(const std::vector<std::string>& paths, Options options,
                     std::unique_ptr<InputSet>* out);
  ~InputSet() override;

  size_t size() const { return readers_.size(); }
  LineReader& reader(size_t i) { return *readers_[i]; }

  // Under Options::defer_vanished: the error of opening a file that is gone, unless Load
  // found where its content went (saved under that name, it is continued by another input of
  // this run, or was rotated away and read to its end). Such a file is read as empty and not
  // saved. REQUIRES: after Load when there is a state to load.
  Status VanishedError() const;

  // Starts keeping what a checkpoint needs: the hash of standard input's consumed bytes. Marks
  // copies among the inputs as a new state sees them (all new; Load decides again).
  // REQUIRES: before Load and before any line is read.
  void TrackForCheckpoints();
  // LineReader::WaitVerified for every input: the first error.
  Status WaitVerified() {
    for (auto& r : readers_) {
      Status s = r->WaitVerified();
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }
  // Follows input i (a plain file) as it grows and across rotations (LineReader::set_follow);
  // a file rotated away meanwhile stays in the state, read to its end.
  void Follow(size_t i, std::function<void(const std::string&)> warn);
  // Records that input i was read to its end in this run.
  void Ended(size_t i) { tracks_[i].ended = true; }
  // Records that `line` of input i was processed.
  void Consumed(size_t i, const Line& line);
  // Where input i started in this run (its restored offset, or 0).
  uint64_t start_offset(size_t i) const { return tracks_[i].start_offset; }
  // The bytes this run read of every input (rotated-away files included) up to `ends`, per
  // input the end of the last line processed; with no `ends`, up to what each reader consumed.
  // REQUIRES: with no `ends`, no ParsePool reads the inputs any more.
  uint64_t BytesRead(const std::vector<uint64_t>* ends = nullptr) {
    uint64_t sum = 0;
    for (size_t i = 0; i < readers_.size(); ++i) {
      const uint64_t end = ends != nullptr ? (*ends)[i] : readers_[i]->bytes_consumed();
      sum += readers_[i]->earlier_files_bytes() + end - tracks_[i].start_offset;
    }
    return sum;
  }
  // After Load: input i was renamed away by a rotation (see above): once read to its end it no
  // longer holds the watermark back, even under --hold.
  bool rotated(size_t i) const { return tracks_[i].rotated; }

  // CheckpointComponent. Load matches each saved input to an input of this run by its
  // identity and moves that reader to its saved offset; a saved input matching none is
  // dropped, an input matching none is new and read from its start. Refused (nothing read or
  // written) when an input was truncated or rewritten before its offset, unless
  // reread_replaced.
  // Version 2 added each file's `rotated` flag and size; version 3 each input's quiet_since;
  // version 4 each input's id, and moved its largest event time and quiet-since time to the
  // sections of the watermark and of idleness, which key them by that id.
  static constexpr uint32_t kVersion = 4;
  std::string_view section() const override { return "inputs"; }
  uint32_t version() const override { return kVersion; }
  bool Reads(uint32_t version) const override { return version >= 3 && version <= kVersion; }
  Status Save(std::string* data) override;
  // Describes the form Save writes, field by field (util/state_codec.h), for savepoints.
  static void DescribeSection(StateCodec* c);
  Status Load(std::string_view data, uint32_t version) override;

  // InputIds.
  uint64_t id(int input) const override;
  void SavedIds(std::vector<Saved>* out) const override;
  bool LegacyTimes(uint64_t id, int64_t* max_time, int64_t* quiet_since) const override;

 private:
  struct Track {
    uint64_t offset = 0;  // just past the last line processed
    uint64_t line = 0;
    uint64_t start_offset = 0;      // where this run began
    XXH64_state_s* hash = nullptr;  // stdin: hash of all bytes consumed so far
    uint64_t id = 0;                // InputIds; 0 until TrackForCheckpoints or Load
    bool rotated = false;
    bool ended = false;  // read to its end in this run
    bool duplicate = false;  // a copy of the content another input continues: not read, not saved
    bool vanished = false;   // gone when opened (Options::defer_vanished): not read, not saved
    Status open_error;       // vanished: the error, until Load finds where its content went
    std::string fixed_tail_hash;  // LineReader::SetAtEnd: the saved one, nothing being read
    // Match: a copytruncate copy shorter than the saved offset (TruncatedCopy), taken as read
    // to its end, its size.
    static constexpr uint64_t kNoSize = UINT64_MAX;
    uint64_t short_copy_size = kNoSize;
    // Files: the bytes a checkpoint knows them by, kept as they are read, never read again
    // from the file then (it may have been truncated or rewritten meanwhile, as a copytruncate
    // rotation does). `head`: the first bytes, up to kFingerprintBytes, as this run read them
    // (those Load matched, then each line consumed); the last bytes consumed, up to kTailBytes
    // of them at the end of tail[0, tail_size).
    bool keep_bytes = false;
    std::string head;
    char tail[128];
    size_t tail_size = 0;
    // Adds the line consumed at [offset, end) of the file, its bytes at `data`, to the head
    // when it reaches into it; a line at offset 0 starts the file again (read from its start
    // again, after a truncation while followed): what was kept of it is dropped first.
    void KeepHead(const char* data, uint64_t offset, uint64_t end);
    void KeepTail(const char* data, size_t n);
    std::string_view Tail() const;
  };
  InputSet() = default;
  // Matches input i against the saved inputs not yet `used`; returns the index or -1.
  Status Match(size_t i, const std::vector<InputPosition>& saved, std::vector<bool>* used,
               int* found);
  // Where input i stands, as saved.
  Status PositionOf(size_t i, InputPosition* out);
  // LineReader's switch to the new file at input i's path.
  void FollowedRotation(size_t i);
  Status follow_error_;
  // Marks as copies (Track::duplicate: not read, not saved) the inputs among `fresh` whose
  // first bytes begin another input's of this run: logrotate's copytruncate copies app.log to
  // app.log.1 and its compress step writes app.log.1.gz before it removes app.log.1, so a run
  // started meanwhile sees both, the copy whole or still being written. Of two new files that
  // hold the same first bytes, the one read is the plain one, then the longer, then the one
  // that is not a generation of another input (the live log), then the first named. A file
  // whose first bytes cannot be read is not taken as a copy.
  void DropCopies(const std::vector<size_t>& fresh);
  void AssignIds();
  // Opens every path, the job's inputs as named (Open lists the families among them first).
  static Status OpenNames(const std::vector<std::string>& paths, Options& options,
                          std::unique_ptr<InputSet>* out);
  // Whether no rotation step moved the families listed as `names` while they were opened: a
  // listing now gives the same names, each listed name is the file opened under it, and no
  // name given is gone.
  bool Settled(const std::vector<std::string>& given, const InputNames& names) const;
  // Marks as rotated every input named as a generation of another (IsGenerationOf): nothing
  // more is written to it, whether or not a run saw it being renamed.
  void MarkGenerations();
  // Whether input i's name is a generation's of another input of this run that is there: that
  // name, then a rotation's suffix (IsRotationSuffix: app.log.1.gz, app.log-20261202 of
  // app.log; not app.log.json or app.log-worker: log_family.h).
  bool IsGenerationOf(size_t i) const;
  // Whether the file last read as `p` was renamed away: p's path holds another file than
  // input i now, or none.
  bool RenamedAway(size_t i, const InputPosition& p) const;
  // A saved file no input of this run continues: warns when bytes of it went unread (it was
  // renamed to a name not given, truncated in place, or is gone), refuses the run when it is
  // still at its path with bytes unread (left off the command line), and keeps its position
  // in carried_ while it can be found, so that naming it again goes on from there.
  Status Unmatched(const InputPosition& p);
  // Whether input i, matched to `p` by its first bytes and shorter than p.offset, is a copy
  // that a copytruncate rotation made of p's file before an earlier run read on in it: another
  // file, plain, while p's file is still at its path and was truncated since (shorter than
  // p.offset, or with other first bytes). Takes input i's size again first (the copy may have
  // been still written when it was opened).
  bool TruncatedCopy(size_t i, const InputPosition& p);
  // Match's check of the bytes before the saved offset of a compressed file: decompresses up
  // to p.offset (where reading goes on) and sets *problem when they differ or are missing.
  Status SkipCompressed(size_t i, const InputPosition& p, std::string* problem);

  Options options_;
  std::vector<std::string> paths_;
  std::vector<std::unique_ptr<LineReader>> readers_;
  std::vector<Track> tracks_;
  std::vector<InputPosition> carried_;  // saved files this run does not read, still kept
  uint64_t next_id_ = 1;                // the id the next new input gets
  // Loaded from a version 3 section: the saved inputs, with the times it held (LegacyTimes).
  std::vector<InputPosition> legacy_;
  // Load: an input the glob named was gone at open (a rotation under way since the glob).
  bool racing_rotation_ = false;
};

}  // namespace logtide
