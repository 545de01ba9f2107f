#include "query/query.h"

#include <fmt/format.h>

#include "json/field_path.h"
#include "time/duration.h"

namespace logtide {

std::vector<std::string> KeyNames(const Query& c) {
  std::vector<std::string> names;
  for (size_t i = 0; i < c.by.size(); ++i) {
    const bool derived = i < c.by_expr.size() && !c.by_expr[i].empty();
    names.push_back(derived ? c.by[i] : FieldPathName(c.by[i]));
  }
  return names;
}

std::vector<std::string> AggNames(const Query& c) {
  std::vector<std::string> names;
  for (const AggSpec& a : c.aggs) names.push_back(a.name);
  return names;
}

RecordFields RecordFieldsOf(const Query& c) {
  RecordFields f;
  f.names = {"window_start", "window_end"};
  if (c.window_label) f.names.push_back("window_label");
  f.first_key = f.names.size();
  for (const std::string& k : KeyNames(c)) f.names.push_back(k);
  for (const std::string& a : AggNames(c)) f.names.push_back(a);
  f.with_revision = Revised(c);
  if (f.with_revision) f.names.insert(f.names.end(), {"revision", "phase", "final"});
  for (size_t i = 0; i < c.by.size(); ++i)
    f.key_paths.push_back(i < c.by_expr.size() && !c.by_expr[i].empty() ? "" : c.by[i]);
  return f;
}

int FindRecordField(const RecordFields& f, const std::string& path) {
  for (size_t j = 0; j < f.names.size(); ++j) {
    PathSegment seg;
    seg.key = f.names[j];
    if (FieldPathText(FieldPath{seg}) == path) return static_cast<int>(j);
  }
  for (size_t k = 0; k < f.key_paths.size(); ++k) {
    if (!f.key_paths[k].empty() && f.key_paths[k] == path) return static_cast<int>(k + f.first_key);
  }
  return -1;
}

namespace {

// An input's name on one line of the query's text: its backslashes and newlines escaped.
std::string EscapedName(std::string_view name) {
  std::string out;
  for (const char ch : name) {
    if (ch == '\\' || ch == '\n') out += '\\';
    out += ch == '\n' ? 'n' : ch;
  }
  return out;
}

}  // namespace

std::string QueryText(const Query& c) {
  // Canonical: aggregates as NAME=FN(FIELD) from their parsed form, so spacing and a default
  // name written out or left off do not make another query.
  std::string by, aggs;
  for (size_t i = 0; i < c.by.size(); ++i) {
    by += (i ? "," : "") + c.by[i];
    if (i < c.by_expr.size() && !c.by_expr[i].empty()) by += "=" + c.by_expr[i];
  }
  for (size_t i = 0; i < c.aggs.size(); ++i) {
    aggs += (i ? " " : "") + CanonicalAggText(c.aggs[i]);
  }
  std::string text = fmt::format(
      "window={}\ntime={}\ntime-format={}\nby={}\nagg={}\ndelay={}\nlateness={}\nemit={}\nformat={"
      "}",
      c.window.ToString(), c.time_field, c.time_format, by, aggs, FormatDuration(c.delay),
      FormatDuration(c.lateness), c.emit == EmitMode::kUpdate ? "update" : "final",
      c.format == OutputFormat::kCsv     ? "csv"
      : c.format == OutputFormat::kTable ? "table"
                                         : "ndjson");
  // Settings added later are written only when given, so that the states of jobs without them
  // stay resumable.
  if (c.window.has_zone) text += "\ntz=" + c.window.zone.name();
  if (c.input_format != InputFormat::kNdjson) {
    text += "\ninput-format=";
    text += InputFormatName(c.input_format);
  }
  // Each input=FORMAT as given (a line of its own: a name may hold any byte but a newline,
  // which is escaped).
  for (const auto& [name, format] : c.input_formats) {
    text += "\ninput-format-of=" + EscapedName(name) + "=";
    text += InputFormatName(format);
  }
  if (c.local_times) text += "\nlocal-times=true";
  if (c.window_label) text += "\nwindow-label=true";
  if (c.max_future > 0) text += "\nmax-future=" + FormatDuration(c.max_future);
  if (c.early > 0) text += "\nearly=" + FormatDuration(c.early);
  if (c.early_every > 0) text += "\nearly-every=" + FormatDuration(c.early_every);
  if (c.changes != ChangeFormat::kSnapshot) {
    text += "\nchanges=";
    text += ChangeFormatName(c.changes);
  }
  if (c.max_line_length != kDefaultMaxLineLength)
    text += "\nmax-line-length=" + std::to_string(c.max_line_length);
  for (const std::string& w : c.where) text += "\nwhere=" + w;
  for (const std::string& h : c.having) text += "\nhaving=" + h;
  return text;
}

}  // namespace logtide
