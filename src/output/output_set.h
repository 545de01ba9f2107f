// The job's outputs (results, late events, bad lines) and their committed lengths across runs
// (a checkpoint component, section "outputs"): a resumed run cuts each output back to the
// length its last checkpoint recorded and writes on from there, so no record is lost or
// written twice. An output is known by its path and by a hash of its last bytes before that
// length: a resume with an output added, dropped or moved, or whose file was replaced by
// another at least as long, is refused.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "output/output_file.h"
#include "state/checkpoint.h"
#include "util/state_codec.h"
#include "util/status.h"

namespace logtide {

struct OutputPosition {
  std::string role;  // "output", "late-output", "errors"
  std::string path;  // as given ("-": standard output)
  uint64_t length = 0;
  std::string absolute;   // the absolute path (util/paths.h), or "-"
  std::string tail_hash;  // XXH64 of the last bytes before `length` (OutputFile::tail)
};

// Decodes an "outputs" section (version OutputSet::kVersion). Returns false when damaged.
bool DecodeOutputPositions(std::string_view data, std::vector<OutputPosition>* out);

class OutputSet final : public CheckpointComponent {
 public:
  // `late` and `errors` may be empty: no such output. "-" is standard output.
  OutputSet(std::string results, std::string late, std::string errors, bool with_state)
      : paths_{std::move(results), std::move(late), std::move(errors)}, with_state_(with_state) {}

  // Opens the outputs. After Load, each continues at its committed length (refused when it is
  // shorter: it was truncated or replaced). A new job truncates them, except standard output
  // under --state: a regular file there (through '>>') keeps what it holds.
  Status Open();
  OutputFile& results() { return files_[0]; }
  OutputFile& late() { return files_[1]; }
  OutputFile& errors() { return files_[2]; }
  // Writes out every open output's buffer and, with `durable`, waits for the disk.
  Status Sync(bool durable);
  // Closes every output; returns the first error.
  Status Close();
  // Fault injection for tests (OutputFile::set_write_budget), for every output.
  void set_write_budget(std::atomic<int64_t>* budget);
  // --change-outputs: a resume whose outputs differ from the job's (one added, left off or
  // moved) is not refused; the outputs given are the job's from this run on: an added or
  // moved one starts empty (refused when it holds data, unless `overwrite`), one left off is no
  // longer written. `warn` says what changed. REQUIRES: before Load.
  void set_change_outputs(bool overwrite, std::function<void(const std::string&)> warn) {
    change_ = true;
    overwrite_ = overwrite;
    warn_ = std::move(warn);
  }
  // OutputFile::set_gate for every output. REQUIRES: before Open.
  void set_gate(const std::function<Status()>& gate) {
    for (OutputFile& f : files_) f.set_gate(gate);
  }

  // Version 2 added each output's absolute path and tail hash.
  static constexpr uint32_t kVersion = 2;
  std::string_view section() const override { return "outputs"; }
  uint32_t version() const override { return kVersion; }
  Status Save(std::string* data) override;
  // Describes the form Save writes, field by field (util/state_codec.h), for savepoints.
  static void DescribeSection(StateCodec* c);
  Status Load(std::string_view data, uint32_t version) override;

 private:
  static constexpr const char* kRoles[3] = {"output", "late-output", "errors"};
  std::string paths_[3];
  bool with_state_;
  bool resumed_ = false;
  bool change_ = false, overwrite_ = false;
  std::function<void(const std::string&)> warn_;
  bool fresh_[3] = {false, false, false};  // --change-outputs: started in this run
  uint64_t committed_[3] = {0, 0, 0};
  std::string tail_hash_[3];
  OutputFile files_[3];
};

}  // namespace logtide
