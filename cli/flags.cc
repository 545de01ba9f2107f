#include "flags.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <thread>

#include "expr/expr.h"
#include "json/field_path.h"
#include "output/having_filter.h"
#include "time/duration.h"
#include "time/time_zone.h"
#include "util/quote.h"

namespace logtide {

int DefaultThreads() {
  // One parsing thread per core: the thread applying events parses blocks of files itself
  // when it would otherwise wait, so cores - 1 workers and it keep every core busy (a thread
  // more than cores made job 1 of bench/ 6% slower: 0.648 -> 0.611 s on 2 cores). Past a few
  // parsers the applying thread is the bottleneck.
  unsigned cores = std::thread::hardware_concurrency();
  return cores <= 1 ? 1 : static_cast<int>(std::min(cores, 8u));
}

namespace {

// One --by key: a field path, or NAME=EXPR (a derived key: the output field NAME holds EXPR's
// value). An '=' of ==, !=, <= or >= is not the name's.
Status ParseKey(std::string_view text, EngineConfig* c) {
  size_t eq = std::string_view::npos;
  for (size_t i = 0; i < text.size() && eq == std::string_view::npos; ++i) {
    if (text[i] == '(' || text[i] == '"' || text[i] == '[') break;
    const bool part_of_op = (i + 1 < text.size() && text[i + 1] == '=') ||
                            (i > 0 && (text[i - 1] == '=' || text[i - 1] == '!' ||
                                       text[i - 1] == '<' || text[i - 1] == '>'));
    if (text[i] == '=' && !part_of_op) eq = i;
  }
  if (eq == std::string_view::npos) {
    std::string path;
    Status s = NormalizeFieldPath("--by", text, &path);
    if (!s.ok()) return s;
    c->by.push_back(path);
    c->by_expr.emplace_back();
    return Status::Ok();
  }
  std::string_view name = text.substr(0, eq), expr = text.substr(eq + 1);
  while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  if (name.empty()) {
    return Status::InvalidArgument(fmt::format(
        "--by {}: a derived key needs a name before '=', as in class=floor(status / 100)",
        QuoteForMessage(text, /*backslash_quotes=*/true)));
  }
  Expr e;
  Status s = Expr::Parse(expr, &e);
  if (!s.ok()) return Status::InvalidArgument(fmt::format("--by {}: {}", QuoteForMessage(text, /*backslash_quotes=*/true), s.message()));
  c->by.emplace_back(name);
  c->by_expr.push_back(e.Canonical());
  return Status::Ok();
}

// --max-line-length: a number of bytes, with an optional K, M or G (KiB, MiB, GiB: 1024s).
Status ParseLineLength(std::string_view text, size_t* out) {
  constexpr uint64_t kMax = uint64_t{1} << 30;
  auto bad = [&] {
    return Status::InvalidArgument(fmt::format(
        "--max-line-length \"{}\": a size from 1 byte to 1G is a number of bytes with an "
        "optional suffix K, M or G (1024s: 64K, 16M, 1G; KiB, MiB and GiB too)",
        text));
  };
  size_t i = 0;
  uint64_t n = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    n = n * 10 + static_cast<uint64_t>(text[i++] - '0');
    if (n > kMax) return bad();
  }
  if (i == 0) return bad();
  std::string unit(text.substr(i));
  for (char& ch : unit) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  int shift = 0;
  if (unit == "K" || unit == "KIB") {
    shift = 10;
  } else if (unit == "M" || unit == "MIB") {
    shift = 20;
  } else if (unit == "G" || unit == "GIB") {
    shift = 30;
  } else if (!unit.empty() && unit != "B") {
    return bad();
  }
  if (n == 0 || n > (kMax >> shift)) return bad();
  *out = static_cast<size_t>(n << shift);
  return Status::Ok();
}

}  // namespace

Status BuildConfig(const Options& o, EngineConfig* c) {
  c->inputs = o.files;
  c->time_format = o.time_format;
  // --input-format FORMAT sets the inputs' format, INPUT=FORMAT one input's (the last '=':
  // a format's name holds none); ValidateConfig checks that INPUT is an input.
  bool default_given = false;
  for (const std::string& v : o.input_formats) {
    const size_t eq = v.rfind('=');
    const std::string name = eq == std::string::npos ? v : v.substr(eq + 1);
    InputFormat format;
    if (!ParseInputFormat(name, &format)) {
      return Status::InvalidArgument(
          "--input-format " + QuoteForMessage(v) + ": expected ndjson, logfmt, csv or tsv" +
          (eq == std::string::npos ? ", or INPUT=FORMAT" : " after the '='"));
    }
    if (eq == std::string::npos) {
      if (default_given && format != c->input_format) {
        return Status::InvalidArgument(
            "--input-format is given twice, as " + std::string(InputFormatName(c->input_format)) +
            " and " + name + ": one format for the inputs, and INPUT=FORMAT for each other");
      }
      default_given = true;
      c->input_format = format;
      continue;
    }
    const std::string input = v.substr(0, eq);
    for (const auto& [other, f] : c->input_formats) {
      if (other == input) {
        return Status::InvalidArgument("--input-format names input " + QuoteForMessage(input) +
                                       " twice");
      }
    }
    c->input_formats.emplace_back(input, format);
  }
  if (o.window.empty()) {
    return Status::InvalidArgument(
        "--window is required, e.g. --window tumbling:1m, sliding:1h:5m or session:30s");
  }
  Status s = ParseWindowSpec(o.window, &c->window);
  if (!s.ok()) return s;
  if (!o.tz.empty()) {
    TimeZone zone;
    if (!(s = TimeZone::Load(o.tz, &zone)).ok()) return s;
    if (!(s = SetWindowZone(zone, &c->window)).ok()) return s;
  }
  if (o.local_times && o.tz.empty()) {
    return Status::InvalidArgument(
        "--local-times needs --tz ZONE: it writes window bounds in that zone's local time "
        "(without --tz they are UTC instants, written with Z)");
  }
  c->local_times = o.local_times;
  c->window_label = o.window_label;
  for (const std::string& list : o.by) {
    for (std::string_view b : SplitTopLevel(list)) {
      if (!(s = ParseKey(b, c)).ok()) return s;
    }
  }
  if (std::all_of(c->by_expr.begin(), c->by_expr.end(), [](auto& e) { return e.empty(); }))
    c->by_expr.clear();  // plain fields only: the config as before derived keys
  for (const std::string& w : o.where) {
    Expr e;
    if (!(s = Expr::Parse(w, &e)).ok())
      return Status::InvalidArgument(
          fmt::format("--where {}: {}", QuoteForMessage(w, /*backslash_quotes=*/true), s.message()));
    c->where.push_back(e.Canonical());
  }
  for (const std::string& h : o.having) {
    Expr e;
    c->having_written.push_back(h);
    if (!(s = Expr::Parse(h, &e)).ok()) {
      return Status::InvalidArgument(
          fmt::format("{}: {}", HavingLabel(*c, c->having_written.size() - 1), s.message()));
    }
    c->having.push_back(e.Canonical());
  }
  if (!(s = NormalizeFieldPath("--time", o.time_field, &c->time_field)).ok()) return s;
  for (const std::string& a : o.aggs) {
    if (!(s = ParseAggList(a, &c->aggs)).ok()) return s;
  }
  if (!(s = ParseDuration(o.delay, &c->delay)).ok())
    return Status::InvalidArgument("--delay: " + s.message());
  if (!(s = ParseDuration(o.lateness, &c->lateness)).ok())
    return Status::InvalidArgument("--lateness: " + s.message());
  if (!o.idle_timeout.empty()) {
    if (!(s = ParseDuration(o.idle_timeout, &c->idle_timeout)).ok())
      return Status::InvalidArgument("--idle-timeout: " + s.message());
    if (c->idle_timeout <= 0)
      return Status::InvalidArgument("--idle-timeout must be longer than 0 (leave it out for never)");
  }
  c->follow = o.follow;
  // With no file, --follow would read standard input, which is read as it comes anyway, and
  // end with it: most likely the file was left off.
  if (o.follow && o.files.empty()) {
    return Status::InvalidArgument(
        "--follow reads files as they grow: name one (--follow app.log); standard input is "
        "read as it comes without --follow (or name it: -)");
  }
  if (!o.max_future.empty()) {
    if (!(s = ParseDuration(o.max_future, &c->max_future)).ok())
      return Status::InvalidArgument("--max-future: " + s.message());
    if (c->max_future <= 0)
      return Status::InvalidArgument("--max-future must be longer than 0 (leave it out for no limit)");
  }
  c->emit = o.emit == "update" ? EmitMode::kUpdate : EmitMode::kFinal;
  if (!o.early.empty()) {
    if (!(s = ParseDuration(o.early, &c->early)).ok())
      return Status::InvalidArgument("--early: " + s.message());
    if (c->early <= 0)
      return Status::InvalidArgument("--early must be longer than 0 (leave it out for none)");
  }
  if (!o.early_every.empty()) {
    if (!(s = ParseDuration(o.early_every, &c->early_every)).ok())
      return Status::InvalidArgument("--early-every: " + s.message());
    if (c->early_every <= 0)
      return Status::InvalidArgument(
          "--early-every must be longer than 0 (leave it out for none)");
  }
  c->changes = o.changes == "retract"    ? ChangeFormat::kRetract
                : o.changes == "debezium" ? ChangeFormat::kDebezium
                                          : ChangeFormat::kSnapshot;
  c->on_error = o.on_error == "fail" ? OnError::kFail : OnError::kSkip;
  c->max_bad_ratio = o.max_bad_ratio;
  c->output = o.output;
  c->format = o.format == "csv"     ? OutputFormat::kCsv
              : o.format == "table" ? OutputFormat::kTable
                                    : OutputFormat::kNdjson;
  c->late_output = o.late_output;
  c->errors_output = o.errors;
  c->quiet = o.quiet;
  c->buffer_size = o.io_buffer;
  if (!o.max_line_length.empty() &&
      !(s = ParseLineLength(o.max_line_length, &c->max_line_length)).ok())
    return s;
  c->threads = o.threads > 0 ? o.threads : DefaultThreads();
  c->apply_threads = o.apply_threads;
  c->state_path = o.state;
  if (o.checkpoint_every == 0)
    return Status::InvalidArgument("--checkpoint-every must be at least 1");
  c->checkpoint_every = o.checkpoint_every;
  if (!(s = ParseDuration(o.checkpoint_interval, &c->checkpoint_interval)).ok()) {
    return Status::InvalidArgument("--checkpoint-interval: " + s.message());
  }
  c->hold = o.hold;
  c->durable = o.durable;
  c->reread_replaced = o.reread_replaced;
  c->overwrite = o.overwrite;
  c->change_outputs = o.change_outputs;
  c->allow_missing_inputs = o.allow_missing_inputs;
  if (o.state.empty() && (o.hold || o.durable || o.reread_replaced || o.overwrite ||
                          o.change_outputs || o.allow_missing_inputs)) {
    return Status::InvalidArgument(std::string(o.hold              ? "--hold"
                                               : o.durable         ? "--durable"
                                               : o.reread_replaced ? "--reread-replaced"
                                               : o.overwrite       ? "--overwrite"
                                               : o.change_outputs  ? "--change-outputs"
                                                                   : "--allow-missing-inputs") +
                                   " needs --state FILE");
  }
  return Status::Ok();
}

}  // namespace logtide
