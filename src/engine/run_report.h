// The run report: every bad line and late event of a run is handed to it where it is found, with
// its reason already typed (BadKind, set where the reason was made: nothing is classified by its
// text). It counts them, shows the first bad lines on the terminal, writes the side records
// (--errors, --late-output), and at the end of the run says what happened: the end-of-run
// warnings with their hints, and the verdict (a run in which no line was usable fails). In the
// spirit of LevelDB's log::Reader::Reporter.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/config.h"
#include "engine/counters.h"
#include "input/line_reader.h"
#include "json/json_checker.h"
#include "output/side_records.h"
#include "time/timestamp.h"
#include "util/status.h"
#include "watermark/lateness.h"

namespace logtide {

class GroupLoad;
class HavingFilter;

class OutputSet;
class ProgressListener;

class ParsePool;

class RunReport {
 public:
  // REQUIRES: config, stats and outputs outlive the report; stats->ignored_values is sized.
  RunReport(const EngineConfig& config, EngineStats* stats, OutputSet* outputs)
      : config_(config), stats_(stats), outputs_(outputs) {}

  // Where messages go; `progress` (may be null) is cleared before each.
  void set_diag(std::FILE* diag, ProgressListener* progress) {
    diag_ = diag;
    progress_ = progress;
  }
  std::FILE* diag() const { return diag_; }

  // Marks the start of this run's lines: what a job resumed from --state counted in its earlier
  // runs is not this run's to report or judge.
  void BeginRun();
  // The job's counters when this run began (after BeginRun).
  const EngineStats& at_start() const { return at_start_; }
  // Bad lines shown on the terminal over the whole job: saved with the counters, so a resumed
  // job shows no more than --max-errors in all.
  int* reported() { return &reported_; }

  // A line that is not an event, for `reason` of `kind`: counted, shown (the first
  // --max-errors, unless --errors or --quiet), written to --errors. Returns the DataError that
  // stops the run under --on-error fail, else Ok.
  Status BadLine(std::string_view input, const Line& line, BadKind kind, std::string_view reason);
  // An event behind the watermark that none of its `windows` took: counted (with its windows
  // as missed), written to --late-output. Late lines leave the fast path: the whole line is
  // checked first, and one that is not valid JSON (its fields could be read) is a bad line
  // instead (*bad set; BadLine's errors), as it would be copied into the record as it is.
  // `format`: the input's lines' (a line of another format than NDJSON is an event, and its
  // record holds the line as a string).
  Status LateEvent(std::string_view input, InputFormat format, const Line& line, Nanos time,
                   Nanos watermark, uint32_t windows, bool* bad);
  // An event added to some of its windows that came after the others closed: counted (its
  // missed windows too), written to --late-output with the windows it missed. It is in the
  // windows already: a line that is not valid JSON as a whole is still an event, and the
  // record holds it as a string.
  // It is in `windows` windows, of which the first `missed` (a slide apart) had closed.
  void PartlyLateEvent(std::string_view input, InputFormat format, const Line& line, Nanos time,
                       Nanos watermark, uint32_t windows, uint32_t missed);
  // Keeps the first lines that held events, to say which fields events have (WarnAtEnd).
  void NoteSample(const Line& line) {
    if (samples_.size() < kSamples) [[unlikely]]
      samples_.emplace_back(line.data, line.size);
  }
  // What the parsers found over the run: the fields of --by, --agg or an expression that no
  // event had (read in the lines --where rejected too, when the field is read in every line),
  // and the expressions that met operands of the wrong type.
  // REQUIRES: the pool's workers are stopped.
  void NoteFields(const ParsePool& pool);
  // The same for --having's expressions, evaluated on the records: their operands of the wrong
  // type and their number-against-string-literal comparisons over the run.
  // REQUIRES: every record was written.
  void NoteHaving(const HavingFilter& having);

  // A warning, unless --quiet.
  void Warn(std::string_view message);
  // The end-of-run warnings: this run's bad lines, late events and partly late events (each
  // with the --delay that would have kept them; `top` is the largest event time read), absent
  // fields with a hint, type mismatches and ignored values.
  void WarnAtEnd(Nanos top);
  // Warns when one key group received half of this run's events or more (and there were at
  // least kSkewEvents of them, for a query with --by): one thread applies a group's events, so
  // more apply threads cannot make applying them even twice as fast. Names the key that
  // received at least a quarter of the events, when the group's vote shows one.
  static constexpr uint64_t kSkewEvents = 100000;
  void WarnGroupLoad(const GroupLoad& load);
  // The run's verdict on its input: DataError when no line was usable (the wrong --time,
  // --time-format, not NDJSON) or when more lines were bad than --max-bad-ratio allows, saying
  // what most bad lines were and what to change.
  Status Verdict() const;

 private:
  static constexpr size_t kSamples = 8;
  void WarnUnseenFields();

  const EngineConfig& config_;
  EngineStats* stats_;
  OutputSet* outputs_;
  JsonChecker json_checker_;  // late lines, before they are counted
  std::FILE* diag_ = stderr;
  ProgressListener* progress_ = nullptr;
  EngineStats at_start_;
  int reported_ = 0;
  int reported_at_start_ = 0;
  // This run's bad lines by kind, and the first one of each (input:line: reason).
  uint64_t bad_by_kind_[kBadKinds] = {};
  std::string first_reason_[kBadKinds];
  LatenessSummary lateness_;  // this run's late events
  // This run's partly late events: how late, and their windows, missed and in all.
  LatenessSummary partly_lateness_;
  uint64_t partly_missed_ = 0, partly_windows_ = 0;
  std::vector<std::string> samples_;
  std::vector<std::string> no_time_samples_;  // the first lines without the time field
  std::vector<std::pair<std::string, bool>> unseen_fields_;
  std::vector<std::pair<std::string, uint64_t>> mismatches_;
  std::vector<std::pair<std::string, uint64_t>> literal_misses_;
};

}  // namespace logtide
