#include "engine/run_report.h"

#include <fmt/format.h>

#include <cmath>

#include "engine/engine.h"
#include "engine/field_hints.h"
#include "engine/parse_pool.h"
#include "json/json_text.h"
#include "json/value.h"
#include "keys/group_load.h"
#include "output/output_set.h"
#include "output/side_records.h"
#include "time/duration.h"
#include "util/diag.h"
#include "util/time_math.h"
#include "output/having_filter.h"

namespace logtide {

namespace {

// Per BadKind: what the lines of a run that had no usable line were, and what to try.
constexpr const char* kBadKindText[kBadKinds][2] = {
    {"not JSON objects", "the input must be newline-delimited JSON, one object per line"},
    {"without the time field",
     "--time names the event-time field (default \"ts\"; a dotted path such as req.ts)"},
    {"with a time that cannot be read",
     "--time-format says how to read it (auto, rfc3339, epoch_s, epoch_ms, epoch_us, epoch_ns "
     "or a strptime pattern)"},
    {"with a time outside the range that can be windowed",
     "event times lie from 1677-09-21 to 2262-04-11, within the range the window, --delay and "
     "--lateness allow; an epoch number read in another unit than it was written in lands far "
     "outside: --time-format epoch_s, epoch_ms, epoch_us and epoch_ns read seconds, "
     "milliseconds, microseconds and nanoseconds (about 10, 13, 16 and 19 digits for times of "
     "this century)"},
    {"more than --max-future ahead of the watermark",
     "--max-future DUR says how far ahead of the watermark an event time may be"},
    {"longer than --max-line-length",
     "--max-line-length SIZE says how long a line may be (default 16MiB; K, M and G suffixes "
     "count 1024s)"},
};

}  // namespace

void RunReport::BeginRun() {
  at_start_ = *stats_;
  reported_at_start_ = reported_;
}

void RunReport::Warn(std::string_view message) {
  if (config_.quiet) return;
  if (progress_ != nullptr) progress_->Clear();
  Diag(diag_, "logtide: warning: {}\n", message);
}

Status RunReport::BadLine(std::string_view input, const Line& line, BadKind kind,
                          std::string_view reason) {
  ++stats_->bad_lines;
  const int k = static_cast<int>(kind);
  if (bad_by_kind_[k]++ == 0) first_reason_[k] = fmt::format("{}:{}: {}", input, line.number, reason);
  // Kept to say which time-like field they have (Verdict).
  if (kind == BadKind::kNoTime && no_time_samples_.size() < kSamples) [[unlikely]]
    no_time_samples_.emplace_back(line.data, line.size);
  if (config_.on_error == OnError::kFail) {
    return Status::DataError(
        kind, fmt::format("{}:{}: {} (stopped by --on-error fail; --on-error skip counts bad "
                          "lines and goes on)",
                          input, line.number, reason));
  }
  OutputFile& errors = outputs_->errors();
  // With --errors, every bad line goes to that file and none to the terminal.
  if (!config_.quiet && !errors.is_open() && reported_ < config_.max_reported_errors) {
    ++reported_;
    if (progress_ != nullptr) progress_->Clear();
    Diag(diag_, "logtide: {}:{}: bad line skipped: {}\n", input, line.number, reason);
  }
  if (errors.is_open()) {
    AppendBadLineRecord(LineOrigin{input, line.number, line.offset}, reason,
                        std::string_view(line.data, line.size), errors.buffer());
    errors.MaybeFlush();
  }
  return Status::Ok();
}

Status RunReport::LateEvent(std::string_view input, InputFormat format, const Line& line,
                            Nanos time, Nanos watermark, uint32_t windows, bool* bad) {
  // A line of --input-format logfmt, csv or tsv was read through its JSON object (lineformat/):
  // it is an event, and the record holds the line as it is, as a JSON string.
  const bool json_line = format == InputFormat::kNdjson;
  *bad = json_line && !json_checker_.IsValid(std::string_view(line.data, line.size));
  if (*bad) return BadLine(input, line, BadKind::kNotJson, "invalid JSON");
  ++stats_->late_events;
  stats_->missed_windows += windows;
  lateness_.Add(SatSub(watermark, time));
  OutputFile& late = outputs_->late();
  if (!late.is_open()) return Status::Ok();
  std::string_view event(line.data, line.size);
  std::string quoted;  // late lines are few: a copy for each is no cost on the fast path
  if (!json_line) {
    AppendJsonString(event, &quoted);
    event = quoted;
  }
  AppendLateRecord(LineOrigin{input, line.number, line.offset}, time, watermark, event,
                   late.buffer());
  late.MaybeFlush();
  return Status::Ok();
}

void RunReport::PartlyLateEvent(std::string_view input, InputFormat format, const Line& line,
                                Nanos time, Nanos watermark, uint32_t windows, uint32_t n) {
  const bool valid = format == InputFormat::kNdjson &&
                     json_checker_.IsValid(std::string_view(line.data, line.size));
  // Its windows start a slide apart and the late ones are its first.
  const WindowSpec& w = config_.window;
  const Nanos first_end = w.NextEndAfter(time);
  const Nanos last_end = SatAdd(first_end, (n - 1) * w.slide);
  const MissedWindows missed{
      windows, n, w.StartOfWindowEnding(first_end), first_end, w.StartOfWindowEnding(last_end),
      last_end};
  ++stats_->partly_late_events;
  stats_->missed_windows += missed.missed;
  partly_missed_ += missed.missed;
  partly_windows_ += missed.windows;
  // As for a late event: a --delay larger by this much would have had the watermark at its
  // time when it came, before its first window closed.
  partly_lateness_.Add(SatSub(watermark, time));
  OutputFile& late = outputs_->late();
  if (!late.is_open()) return;
  AppendPartlyLateRecord(LineOrigin{input, line.number, line.offset}, time, watermark, missed,
                         std::string_view(line.data, line.size), valid, late.buffer());
  late.MaybeFlush();
}

Status RunReport::Verdict() const {
  const EngineStats& a = at_start_;
  const uint64_t lines = stats_->lines - a.lines;
  const uint64_t bad = stats_->bad_lines - a.bad_lines;
  // An event --where skipped was usable: the filter, not the input, left it out.
  const uint64_t usable = (stats_->events - a.events) + (stats_->late_events - a.late_events) +
                          (stats_->filtered - a.filtered);
  if (bad == 0) return Status::Ok();
  int kind = 0;
  for (int k = 1; k < kBadKinds; ++k) {
    if (bad_by_kind_[k] > bad_by_kind_[kind]) kind = k;
  }
  // A line of --input-format logfmt, csv or tsv that is not of it is not a JSON object.
  const bool other_format = kind == static_cast<int>(BadKind::kNotJson) && !config_.AllNdjson();
  InputFormat format;
  const bool one_format = config_.OneFormat(&format);
  const std::string not_of = !other_format ? ""
                             : one_format  ? fmt::format("not {} lines", InputFormatName(format))
                                           : std::string("not lines of their input's format");
  std::string most = fmt::format(
      "{} of them {} (the first, {}); {}", bad_by_kind_[kind],
      other_format ? not_of.c_str() : kBadKindText[kind][0], first_reason_[kind],
      other_format ? "--input-format says what the lines are: ndjson (the default), logfmt, csv "
                     "or tsv (see man logtide, INPUT FORMATS)"
                   : kBadKindText[kind][1]);
  if (kind == static_cast<int>(BadKind::kNoTime))
    most += FieldHints(no_time_samples_).TimeLike(config_.time_field);
  if (usable == 0) {
    return Status::DataError(
        static_cast<BadKind>(kind),
        fmt::format("no line of the input was usable: {} line{} read, {} bad, {}", lines,
                    lines == 1 ? "" : "s", bad, most));
  }
  if (static_cast<double>(bad) > config_.max_bad_ratio * static_cast<double>(lines)) {
    return Status::DataError(
        static_cast<BadKind>(kind),
        fmt::format("{} of {} lines were bad, more than --max-bad-ratio {} allows: {}", bad, lines,
                    config_.max_bad_ratio, most));
  }
  return Status::Ok();
}

void RunReport::WarnGroupLoad(const GroupLoad& load) {
  const uint64_t total = load.total();
  if (config_.by.empty() || total < kSkewEvents) return;
  const GroupLoad::Heaviest h = load.heaviest();
  if (2 * h.events < total) return;
  std::string text = fmt::format(
      "logtide: warning: key group {} received {}% of this run's {} events: one thread applies "
      "a group's events, so more threads (--apply-threads) cannot apply this job's events more "
      "than {:.2f}x as fast",
      h.group, h.events * 100 / total, total,
      std::floor(100.0 * static_cast<double>(total) / static_cast<double>(h.events)) / 100);
  if (4 * h.votes >= total && IsEncodedKey(h.key, config_.by.size())) {
    // The key as a record's key fields: {"user":"alice"}.
    std::string key = "{", scratch;
    std::string_view in = h.key;
    for (size_t i = 0; i < config_.by.size(); ++i) {
      if (i > 0) key += ',';
      AppendJsonString(config_.by[i], &key);
      key += ':';
      AppendJsonValue(DecodeValue(&in, &scratch), &key);
    }
    key += '}';
    text += fmt::format("; the key {} alone received at least {}% of them", key,
                        h.votes * 100 / total);
  }
  Diag(diag_, "{}\n", text);
}

void RunReport::WarnAtEnd(Nanos top) {
  const EngineStats& a = at_start_;
  const uint64_t bad = stats_->bad_lines - a.bad_lines;
  if (bad > 0 && config_.errors_output.empty() && config_.on_error == OnError::kSkip) {
    Diag(diag_,
         "logtide: warning: {} bad line{} skipped ({} shown above); keep them all with "
         "--errors FILE\n",
         bad, bad == 1 ? "" : "s", reported_ - reported_at_start_);
  }
  const uint64_t late = stats_->late_events - a.late_events;
  if (late > 0 && config_.late_output.empty()) {
    // The --delay that would have kept them all: the watermark lower by the largest lateness,
    // rounded up to a tenth of its unit.
    const std::string delay = FormatDurationRounded(SatAdd(config_.delay, lateness_.max()), true);
    std::string text = fmt::format(
        "logtide: warning: {} late event{} dropped, up to {} behind the watermark (median about "
        "{}); --delay {} would have kept them all (or allow more with --lateness), or keep them "
        "with --late-output FILE\n",
        late, late == 1 ? "" : "s", FormatDurationRounded(lateness_.max(), true),
        FormatDurationRounded(lateness_.Median(), false), delay);
    // One event far ahead of the rest (a clock glitch) makes most of what follows late.
    const uint64_t events = (stats_->events - a.events) + late;
    if (2 * late > events && lateness_.Median() >= 3600 * kNanosPerSecond) {
      text += fmt::format(
          "logtide: warning: most events were late, far behind the largest event time read "
          "({}): if that time is wrong (a clock glitch), --max-future DUR makes events that far "
          "ahead of the watermark bad lines instead\n",
          FormatRfc3339(SatAdd(top, config_.delay)));
    }
    Diag(diag_, "{}", text);
  }
  const uint64_t partly = stats_->partly_late_events - a.partly_late_events;
  if (partly > 0 && config_.late_output.empty()) {
    const bool one = partly == 1;
    Diag(diag_,
         "logtide: warning: {} event{} missed {} of {} {} windows, closed before {} came ({} in "
         "the other {}), up to {} behind the watermark (median about {}); --delay {} would have "
         "kept {} in all {} windows (or allow more with --lateness), or keep {} with "
         "--late-output FILE\n",
         partly, one ? "" : "s", partly_missed_, one ? "its" : "their", partly_windows_,
         one ? "it" : "they", one ? "it is" : "they are", partly_windows_ - partly_missed_,
         FormatDurationRounded(partly_lateness_.max(), true),
         FormatDurationRounded(partly_lateness_.Median(), false),
         FormatDurationRounded(SatAdd(config_.delay, partly_lateness_.max()), true),
         one ? "it" : "them", one ? "its" : "their", one ? "it" : "them");
  }
  WarnUnseenFields();
  for (const auto& [label, n] : literal_misses_) {
    Diag(diag_,
         "logtide: warning: {} compared a number with a string literal (or a string with a "
         "number literal) {} time{}: values of different types are never equal and do not "
         "order (write 500, not \"500\")\n",
         label, n, n == 1 ? "" : "s");
  }
  for (const auto& [label, n] : mismatches_) {
    Diag(diag_,
         "logtide: warning: {} met {} operand{} of the wrong type (or a division by zero), "
         "taken as null\n",
         label, n, n == 1 ? "" : "s");
  }
  for (size_t i = 0; i < config_.aggs.size(); ++i) {
    const uint64_t ignored = stats_->ignored_values[i] - a.ignored_values[i];
    if (ignored == 0) continue;
    const AggSpec& agg = config_.aggs[i];
    Diag(diag_, "logtide: warning: {} ignored {} non-numeric value{} of \"{}\"\n", agg.text,
         ignored, ignored == 1 ? "" : "s", agg.field);
  }
}

// A --by or --agg field that no event of the run had is most likely misspelled: the field, how
// many events lacked it, and the closest field the first events have.
void RunReport::WarnUnseenFields() {
  const EngineStats& a = at_start_;
  // Events --where skipped count for the fields read in every line: a misspelled --where
  // field skips every event. The other fields are read only in the events it keeps.
  const uint64_t kept = (stats_->events - a.events) + (stats_->late_events - a.late_events);
  const uint64_t filtered = stats_->filtered - a.filtered;
  if (kept + filtered == 0 || unseen_fields_.empty()) return;
  const FieldHints hints(samples_);
  for (const auto& [field, every_line] : unseen_fields_) {
    const uint64_t events = every_line ? kept + filtered : kept;
    if (events == 0) continue;
    std::string_view flag = "an expression's";  // of --where, a derived key or a filter
    for (const AggSpec& agg : config_.aggs) flag = agg.field == field ? "--agg" : flag;
    for (const std::string& b : config_.by) flag = b == field ? "--by" : flag;
    Diag(diag_, "logtide: warning: {} field {} was absent or null in all {} event{}{}\n", flag,
         ShownPath(field), events, events == 1 ? "" : "s", hints.For(field));
  }
}

void RunReport::NoteFields(const ParsePool& pool) {
  for (size_t i = 0; i < pool.checked_fields().size(); ++i) {
    if (i >= pool.fields_seen().size() || !pool.fields_seen()[i])
      unseen_fields_.emplace_back(pool.checked_fields()[i], pool.checked_every_line()[i] != 0);
  }
  for (size_t i = 0; i < pool.expr_mismatches().size() && i < pool.expr_labels().size(); ++i) {
    if (pool.expr_mismatches()[i] > 0)
      mismatches_.emplace_back(pool.expr_labels()[i], pool.expr_mismatches()[i]);
  }
  for (size_t i = 0; i < pool.expr_literal_misses().size() && i < pool.expr_labels().size(); ++i) {
    if (pool.expr_literal_misses()[i] > 0)
      literal_misses_.emplace_back(pool.expr_labels()[i], pool.expr_literal_misses()[i]);
  }
}

void RunReport::NoteHaving(const HavingFilter& having) {
  const std::vector<uint64_t> mismatches = having.type_errors();
  const std::vector<uint64_t> misses = having.literal_kind_misses();
  for (size_t i = 0; i < mismatches.size(); ++i) {
    const std::string label = HavingLabel(config_, i);
    if (mismatches[i] > 0) mismatches_.emplace_back(label, mismatches[i]);
    if (misses[i] > 0) literal_misses_.emplace_back(label, misses[i]);
  }
}

}  // namespace logtide
