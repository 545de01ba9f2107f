#include "state/savepoint.h"

#include <absl/strings/escaping.h>
#include <fmt/format.h>
#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "agg/accumulators.h"
#include "agg/agg_spec.h"
#include "engine/counters.h"
#include "expr/expr.h"
#include "input/input_set.h"
#include "json/json_text.h"
#include "output/change_writer.h"
#include "output/output_set.h"
#include "query/query.h"
#include "state/savepoint_codec.h"
#include "state/state_store.h"
#include "util/version.h"
#include "watermark/idleness.h"
#include "watermark/watermark.h"
#include "window/window_operator.h"

namespace logtide {

namespace {

constexpr std::string_view kSumKey = ",\"sum\":\"";
constexpr size_t kSumTail = kSumKey.size() + 16 + 2;  // ,"sum":"<16 hex>"}

// Ends `line` (an object without its closing brace) with its sum, chained from *sum.
void Seal(std::string* line, uint64_t* sum) {
  *sum = XXH64(line->data(), line->size(), *sum);
  line->append(fmt::format("{}{:016x}\"}}\n", kSumKey, *sum));
}

void AppendBase64(std::string_view bytes, std::string* out) {
  std::string b64;
  absl::Base64Escape(absl::string_view(bytes.data(), bytes.size()), &b64);
  out->push_back('"');
  out->append(b64);
  out->push_back('"');
}

// What the window rows of a job hold, from its identity (query/query.h QueryText): the window
// kind, whether records have revisions, and the aggregates.
struct RowLayout {
  std::vector<AggSpec> aggs;
  std::unique_ptr<Accumulators> acc;
  WindowRowForm form;
  size_t key_values = 0;  // in every group key: one per --by key
  OutputFormat out_format = OutputFormat::kNdjson;
};

// QueryText writes window= first, then time=, time-format= (as given: it may hold newlines),
// by= and agg= (a derived key's or an aggregate's name as given: it may hold newlines too),
// delay=, lateness=, emit= and format=, then the settings given, each escaped or canonical text
// of one line. So the fixed lines are found from format=, the last line that starts so, back,
// agg= and by= each the last line before the next that starts so; the settings after format=.
Status RowLayoutOf(std::string_view query, RowLayout* out) {
  std::vector<std::string_view> lines;
  for (size_t at = 0; at <= query.size();) {
    size_t nl = query.find('\n', at);
    if (nl == std::string_view::npos) nl = query.size();
    lines.push_back(query.substr(at, nl - at));
    at = nl + 1;
  }
  auto starts = [](std::string_view line, std::string_view name) {
    return line.substr(0, name.size()) == name;
  };
  auto value = [&](std::string_view line, std::string_view name) {
    return starts(line, name) ? line.substr(name.size()) : std::string_view();
  };
  // The text of lines [from, to] after `name`, with their newlines.
  auto span = [&](size_t from, size_t to, std::string_view name) {
    const size_t begin = static_cast<size_t>(lines[from].data() - query.data()) + name.size();
    const size_t end = static_cast<size_t>(lines[to].data() - query.data()) + lines[to].size();
    return query.substr(begin, end - begin);
  };
  const Status bad = Status::Corruption("the query is not a logtide query's text");
  size_t format = lines.size();
  while (format > 0 && !starts(lines[format - 1], "format=")) --format;
  if (format < 9 || !starts(lines[0], "window=") || !starts(lines[format - 2], "emit="))
    return bad;
  --format;  // its index
  size_t agg = format - 4, by;
  while (agg > 3 && !starts(lines[agg], "agg=")) --agg;
  for (by = agg - 1; by > 2 && !starts(lines[by], "by="); --by) {
  }
  if (!starts(lines[agg], "agg=") || !starts(lines[by], "by=") || by < 3) return bad;
  Query q;
  q.emit = value(lines[format - 1], "emit=") == "update" ? EmitMode::kUpdate : EmitMode::kFinal;
  for (size_t i = format + 1; i < lines.size(); ++i) {
    if (!value(lines[i], "early=").empty()) q.early = 1;
    if (!value(lines[i], "early-every=").empty()) q.early_every = 1;
  }
  out->form.revised = Revised(q);
  out->out_format = value(lines[format], "format=") == "csv" ? OutputFormat::kCsv
                    : value(lines[format], "format=") == "table" ? OutputFormat::kTable
                                                                 : OutputFormat::kNdjson;
  // by= is a list as --by takes it (query/query.h): keys by commas outside brackets, quotes
  // and parentheses.
  const std::string_view by_list = span(by, agg - 1, "by=");
  out->key_values = by_list.empty() ? 0 : SplitTopLevel(by_list).size();
  out->form.session = value(lines[0], "window=").substr(0, 8) == "session:";
  const std::string_view agg_list = span(agg, format - 4, "agg=");
  if (Status s = ParseCanonicalAggList(agg_list, &out->aggs); !s.ok()) {
    return Status::Corruption(fmt::format("the query's aggregates cannot be read: {}", s.message()));
  }
  out->acc = std::make_unique<Accumulators>(out->aggs);
  out->form.acc = out->acc.get();
  out->form.aggs = &out->aggs;
  return Status::Ok();
}

// The sections a savepoint writes field by field: each in the version its component writes
// now (a section of an older version, in a state not resumed since an upgrade, is written as
// its bytes: "data").
struct SectionForm {
  std::string_view name;
  uint32_t version;
  void (*describe)(const RowLayout& job, StateCodec* c);
};
constexpr SectionForm kSectionForms[] = {
    {"changes", ChangeWriter::kVersion,
     [](const RowLayout& job, StateCodec* c) { ChangeWriter::DescribeSection(job.out_format, c); }},
    {"counters", CountersState::kVersion,
     [](const RowLayout&, StateCodec* c) { CountersState::DescribeSection(c); }},
    {"idleness", Idleness::kVersion,
     [](const RowLayout&, StateCodec* c) { Idleness::DescribeSection(c); }},
    {"inputs", InputSet::kVersion,
     [](const RowLayout&, StateCodec* c) { InputSet::DescribeSection(c); }},
    {"outputs", OutputSet::kVersion,
     [](const RowLayout&, StateCodec* c) { OutputSet::DescribeSection(c); }},
    {"watermark", WatermarkTracker::kVersion,
     [](const RowLayout&, StateCodec* c) { WatermarkTracker::DescribeSection(c); }},
    {"windows", WindowOperator::kVersion,
     [](const RowLayout& job, StateCodec* c) {
       WindowOperator::DescribeSection(job.form.session, c);
     }},
};

const SectionForm* FormOf(std::string_view name, uint32_t version) {
  for (const SectionForm& f : kSectionForms) {
    if (f.name == name && f.version == version) return &f;
  }
  return nullptr;
}

// A window row's key and value from their objects (the savepoint's text of them).
Status RowBytes(const RowLayout& layout, simdjson::dom::object window,
                simdjson::dom::object state, std::string* key, std::string* value) {
  key->clear();
  value->clear();
  BytesFromJson k(window, key);
  k.set_key_values(layout.key_values);
  DescribeWindowRowKey(layout.form, &k);
  if (Status s = k.Finish(); !s.ok())
    return Status::Corruption(fmt::format("\"window\": {}", s.message()));
  BytesFromJson v(state, value);
  v.set_key_values(layout.key_values);
  DescribeWindowRowValue(layout.form, &v);
  if (Status s = v.Finish(); !s.ok())
    return Status::Corruption(fmt::format("\"state\": {}", s.message()));
  return Status::Ok();
}

// Appends a window row's key and value as the text of a row line's fields; checks that the
// text reads back as the same bytes (every value of a state is one its text can say).
Status AppendRow(const RowLayout& layout, std::string_view key, std::string_view value,
                 simdjson::dom::parser* parser, std::string* line) {
  line->append("\"window\":");
  Status s = DescribeAsJson(
      key, [&](StateCodec* c) { DescribeWindowRowKey(layout.form, c); }, parser, line,
      layout.key_values);
  if (!s.ok()) return Status::Corruption(fmt::format("its key: {}", s.message()));
  line->append(",\"state\":");
  s = DescribeAsJson(
      value, [&](StateCodec* c) { DescribeWindowRowValue(layout.form, c); }, parser, line,
      layout.key_values);
  if (!s.ok()) return Status::Corruption(fmt::format("its value: {}", s.message()));
  return Status::Ok();
}

// Appends a section's fields as text, checked to read back as the same bytes.
Status AppendSection(const RowLayout& layout, const SectionForm& form, std::string_view data,
                     simdjson::dom::parser* parser, std::string* line) {
  return DescribeAsJson(
      data, [&](StateCodec* c) { form.describe(layout, c); }, parser, line,
      layout.key_values);
}

Status Write(std::FILE* out, const std::string& line) {
  if (std::fwrite(line.data(), 1, line.size(), out) != line.size())
    return Status::IOError(fmt::format("writing the savepoint: {}", std::strerror(errno)));
  return Status::Ok();
}

}  // namespace

Status ExportSavepoint(const std::string& state_path, std::FILE* out) {
  std::string query;
  Checkpoint c;
  // Every row is read and checked before a line is written: a damaged state exports nothing.
  WindowRows rows;
  Status s = StateStore::Read(state_path, &query, &c,
                              [&](RowSource::Row row) { rows.Add(row.first, row.second); });
  if (!s.ok()) return s;
  if (c.checkpoints == 0) {
    return Status::Refused(fmt::format(
        "state file {} holds no checkpoint yet (its job was stopped before its first): there "
        "is nothing to export",
        state_path));
  }
  RowLayout layout;
  if (!(s = RowLayoutOf(query, &layout)).ok())
    return Status::Corruption(fmt::format("state file {}: {}", state_path, s.message()));
  uint64_t sum = 0;
  std::string line = fmt::format("{{\"savepoint\":{},\"logtide\":\"{}\",\"state_format\":{},",
                                 kSavepointFormat, kLogtideVersion, StateStore::kFormat);
  line += "\"query\":";
  AppendJsonString(query, &line);
  line += fmt::format(",\"finished\":{},\"checkpoints\":{}", c.finished ? "true" : "false",
                      c.checkpoints);
  Seal(&line, &sum);
  if (!(s = Write(out, line)).ok()) return s;
  simdjson::dom::parser parser;
  for (const Section& sec : c.sections) {
    line = "{\"section\":";
    AppendJsonString(sec.name, &line);
    line += fmt::format(",\"version\":{},", sec.version);
    if (const SectionForm* form = FormOf(sec.name, sec.version)) {
      line += "\"fields\":";
      if (!(s = AppendSection(layout, *form, sec.data, &parser, &line)).ok()) {
        return Status::Corruption(fmt::format("state file {}: the {} section: {}", state_path,
                                              sec.name, s.message()));
      }
    } else {
      line += "\"data\":";
      AppendBase64(sec.data, &line);
    }
    Seal(&line, &sum);
    if (!(s = Write(out, line)).ok()) return s;
  }
  for (const auto& [name, value] : c.info) {
    line = "{\"info\":";
    AppendJsonString(name, &line);
    line += ",\"value\":";
    AppendJsonString(value, &line);
    Seal(&line, &sum);
    if (!(s = Write(out, line)).ok()) return s;
  }
  uint64_t windows = 0;
  for (const auto& [key, value] : rows) {
    line = "{";
    if (!(s = AppendRow(layout, key, value, &parser, &line)).ok()) {
      return Status::Corruption(
          fmt::format("state file {}: window row {}: {}", state_path, windows + 1, s.message()));
    }
    Seal(&line, &sum);
    if (!(s = Write(out, line)).ok()) return s;
    ++windows;
  }
  line = fmt::format("{{\"end\":{{\"sections\":{},\"info\":{},\"windows\":{}}}", c.sections.size(),
                     c.info.size(), windows);
  Seal(&line, &sum);
  if (!(s = Write(out, line)).ok()) return s;
  if (std::fflush(out) != 0)
    return Status::IOError(fmt::format("writing the savepoint: {}", std::strerror(errno)));
  return Status::Ok();
}

namespace {

// Reads a savepoint line by line, checking each line's sum and parsing its object.
class SavepointReader {
 public:
  SavepointReader(std::FILE* in, const std::string& name) : in_(in), name_(name) {}

  // The next line's object in *obj; *eof at the end of the input (no line).
  Status Next(simdjson::dom::object* obj, bool* eof) {
    *eof = false;
    line_.clear();
    int ch;
    while ((ch = std::getc(in_)) != EOF && ch != '\n') line_.push_back(static_cast<char>(ch));
    if (std::ferror(in_)) {
      return Status::IOError(fmt::format("reading savepoint {}: {}", name_, std::strerror(errno)));
    }
    if (ch == EOF && line_.empty()) {
      *eof = true;
      return Status::Ok();
    }
    ++number_;
    // A newer format is refused as such before its sums are checked: they may be made
    // otherwise there.
    constexpr std::string_view kHeader = "{\"savepoint\":";
    if (number_ == 1 && line_.compare(0, kHeader.size(), kHeader) == 0) {
      uint64_t format = 0;
      size_t i = kHeader.size();
      for (; i < line_.size() && i < kHeader.size() + 9 && line_[i] >= '0' && line_[i] <= '9'; ++i)
        format = format * 10 + static_cast<uint64_t>(line_[i] - '0');
      if (i > kHeader.size() && format > static_cast<uint64_t>(kSavepointFormat)) {
        return Status::Refused(fmt::format(
            "savepoint {} is of format {}, written by a newer logtide; this logtide ({}) reads "
            "savepoint formats up to {}",
            name_, format, kLogtideVersion, kSavepointFormat));
      }
    }
    if (ch == EOF) return Error("the last line has no newline (the savepoint was cut short)");
    if (line_.size() < kSumTail + 1 ||
        line_.compare(line_.size() - kSumTail, kSumKey.size(), kSumKey) != 0 ||
        line_.compare(line_.size() - 2, 2, "\"}") != 0) {
      return Error("the line does not end with its \"sum\"");
    }
    const size_t body = line_.size() - kSumTail;
    uint64_t said = 0;
    for (size_t i = body + kSumKey.size(); i < line_.size() - 2; ++i) {
      const char d = line_[i];
      if (!((d >= '0' && d <= '9') || (d >= 'a' && d <= 'f')))
        return Error("its \"sum\" is not 16 lowercase hexadecimal digits");
      said = said * 16 + static_cast<uint64_t>(d <= '9' ? d - '0' : d - 'a' + 10);
    }
    const uint64_t sum = XXH64(line_.data(), body, sum_);
    if (sum != said) {
      return Error(
          "its \"sum\" does not match: the line was changed, or lines were added, removed or "
          "reordered before it");
    }
    sum_ = sum;
    line_.resize(body);
    line_.push_back('}');
    simdjson::dom::element doc;
    if (auto e = parser_.parse(line_).get(doc); e != simdjson::SUCCESS)
      return Error(fmt::format("not JSON: {}", simdjson::error_message(e)));
    if (doc.get_object().get(*obj)) return Error("not a JSON object");
    return Status::Ok();
  }

  Status Error(std::string_view reason) const {
    return Status::Corruption(fmt::format("savepoint {}:{}: {}", name_, number_, reason));
  }

 private:
  std::FILE* in_;
  const std::string& name_;
  std::string line_;
  uint64_t number_ = 0;
  uint64_t sum_ = 0;
  simdjson::dom::parser parser_;
};

// The fields of one line's object, each read once by name; Done checks that no other is there.
class Fields {
 public:
  Fields(simdjson::dom::object obj, const SavepointReader& r) : obj_(obj), r_(r) {}

  Status String(const char* key, std::string* out) {
    std::string_view v;
    if (obj_[key].get_string().get(v)) return Missing(key, "a string");
    out->assign(v);
    return Used(key);
  }
  Status Bytes(const char* key, std::string* out) {
    std::string b64;
    if (Status s = String(key, &b64); !s.ok()) return s;
    if (!absl::Base64Unescape(absl::string_view(b64.data(), b64.size()), out) || !Canonical(b64, *out))
      return r_.Error(fmt::format("\"{}\" is not base64 as logtide writes it", key));
    return Status::Ok();
  }
  Status Object(const char* key, simdjson::dom::object* out) {
    if (obj_[key].get_object().get(*out)) return Missing(key, "an object");
    return Used(key);
  }
  Status Uint(const char* key, uint64_t* out) {
    if (obj_[key].get_uint64().get(*out)) return Missing(key, "a whole number");
    return Used(key);
  }
  Status Bool(const char* key, bool* out) {
    if (obj_[key].get_bool().get(*out)) return Missing(key, "true or false");
    return Used(key);
  }
  Status Done() const {
    if (obj_.size() == used_.size()) return Status::Ok();
    std::string_view name;
    bool twice = false;
    if (!ExtraField(obj_, used_, &name, &twice))
      return r_.Error("the line has fields a savepoint line does not have");
    return r_.Error(twice ? fmt::format("\"{}\" is given twice", name)
                          : fmt::format("\"{}\" is not a field of this savepoint line", name));
  }

 private:
  Status Used(const char* key) {
    used_.push_back(key);
    return Status::Ok();
  }
  Status Missing(const char* key, const char* what) const {
    size_t n = 0;
    for (auto [name, value] : obj_) n += std::string_view(name.data(), name.size()) == key;
    if (n > 1) return r_.Error(fmt::format("\"{}\" is given twice", key));
    return r_.Error(fmt::format("\"{}\" is missing or not {}", key, what));
  }
  // Only the one padded encoding logtide writes: a savepoint has one text per state.
  static bool Canonical(const std::string& b64, const std::string& bytes) {
    std::string again;
    absl::Base64Escape(absl::string_view(bytes.data(), bytes.size()), &again);
    return again == b64;
  }
  simdjson::dom::object obj_;
  const SavepointReader& r_;
  std::vector<std::string_view> used_;  // the fields read
};

bool Has(simdjson::dom::object obj, const char* key) {
  simdjson::dom::element e;
  return !obj[key].get(e);
}

}  // namespace

Status ImportSavepoint(std::FILE* in, const std::string& name, const std::string& state_path) {
  struct stat st;
  if (::stat(state_path.c_str(), &st) == 0 && st.st_size > 0) {
    return Status::Refused(fmt::format(
        "state file {} exists: import makes a new state file (remove it, or name another)",
        state_path));
  }
  SavepointReader r(in, name);
  simdjson::dom::object obj;
  bool eof = false;
  Status s = r.Next(&obj, &eof);
  if (!s.ok()) return s;
  if (eof) return Status::Corruption(fmt::format("savepoint {} is empty", name));
  std::string query, version;
  uint64_t format = 0, state_format = 0;
  Checkpoint c;
  {
    if (!Has(obj, "savepoint")) return r.Error("the first line is not a savepoint's header");
    Fields f(obj, r);
    if (!(s = f.Uint("savepoint", &format)).ok()) return s;
    if (format == 0 || format > static_cast<uint64_t>(kSavepointFormat))
      return r.Error("its savepoint format is not one logtide writes");
    if (!(s = f.String("logtide", &version)).ok() ||
        !(s = f.Uint("state_format", &state_format)).ok() ||
        !(s = f.String("query", &query)).ok() || !(s = f.Bool("finished", &c.finished)).ok() ||
        !(s = f.Uint("checkpoints", &c.checkpoints)).ok() || !(s = f.Done()).ok())
      return s;
    if (state_format > static_cast<uint64_t>(StateStore::kFormat)) {
      return Status::Refused(fmt::format(
          "savepoint {} holds a state of format {}, written by a newer logtide ({}); this "
          "logtide {} reads state formats up to {}",
          name, state_format, version, kLogtideVersion, StateStore::kFormat));
    }
    if (c.checkpoints == 0) return r.Error("a savepoint holds a checkpoint: \"checkpoints\" is 0");
  }
  // Format 1 wrote window rows as their bytes in base64; 2 writes them as text.
  RowLayout layout;
  if (format >= 2 && !(s = RowLayoutOf(query, &layout)).ok()) return r.Error(s.message());
  // Then the sections, the facts and the window rows, each by name or key, then the counts.
  enum Part { kSections, kInfo, kWindows } part = kSections;
  std::string last;  // the previous line's name or key, in its part
  while (true) {
    if (!(s = r.Next(&obj, &eof)).ok()) return s;
    if (eof) return r.Error("the savepoint ends before its \"end\" line (it was cut short)");
    Fields f(obj, r);
    std::string key;
    if (Has(obj, "section")) {
      if (part != kSections) return r.Error("a section after the info or window lines");
      Section sec;
      uint64_t v = 0;
      if (!(s = f.String("section", &sec.name)).ok() || !(s = f.Uint("version", &v)).ok())
        return s;
      if (v > UINT32_MAX) return r.Error("the section's version is out of range");
      sec.version = static_cast<uint32_t>(v);
      // Format 2 writes the sections of this logtide's versions field by field.
      if (format >= 2 && Has(obj, "fields")) {
        const SectionForm* form = FormOf(sec.name, sec.version);
        if (form == nullptr) {
          return r.Error(fmt::format(
              "the fields of a {} section of version {}, which this logtide does not write",
              sec.name, sec.version));
        }
        simdjson::dom::object fields;
        if (!(s = f.Object("fields", &fields)).ok() || !(s = f.Done()).ok()) return s;
        BytesFromJson in(fields, &sec.data);
        in.set_key_values(layout.key_values);
        form->describe(layout, &in);
        if (Status e = in.Finish(); !e.ok())
          return r.Error(fmt::format("\"fields\": {}", e.message()));
      } else if (format >= 2 && FormOf(sec.name, sec.version) != nullptr) {
        // One text per state: this logtide's versions only as their fields.
        return r.Error(fmt::format(
            "a {} section of version {} must be written as its \"fields\", not as \"data\"",
            sec.name, sec.version));
      } else if (!(s = f.Bytes("data", &sec.data)).ok() || !(s = f.Done()).ok()) {
        return s;
      }
      key = sec.name;
      if (!c.sections.empty() && key <= last) return r.Error("the sections are not in name order");
      c.sections.push_back(std::move(sec));
    } else if (Has(obj, "info")) {
      if (part == kWindows) return r.Error("an info line after the window lines");
      if (part == kSections) last.clear();
      part = kInfo;
      std::string value;
      if (!(s = f.String("info", &key)).ok() || !(s = f.String("value", &value)).ok() ||
          !(s = f.Done()).ok())
        return s;
      if (!c.info.empty() && key <= last) return r.Error("the info lines are not in name order");
      c.info.emplace_back(key, std::move(value));
    } else if (Has(obj, "window")) {
      if (part != kWindows) last.clear();
      const bool first = part != kWindows;
      part = kWindows;
      StateOp op{StateOp::kPut, {}, {}};
      if (format == 1) {
        if (!(s = f.Bytes("window", &op.key)).ok() || !(s = f.Bytes("value", &op.value)).ok() ||
            !(s = f.Done()).ok())
          return s;
      } else {
        simdjson::dom::object window, state;
        if (!(s = f.Object("window", &window)).ok() || !(s = f.Object("state", &state)).ok() ||
            !(s = f.Done()).ok())
          return s;
        if (!(s = RowBytes(layout, window, state, &op.key, &op.value)).ok())
          return r.Error(s.message());
      }
      key = op.key;
      if (!first && key <= last) return r.Error("the window rows are not in key order");
      c.window_ops.push_back(std::move(op));
    } else if (Has(obj, "end")) {
      simdjson::dom::object counts;
      if (obj["end"].get_object().get(counts) || obj.size() != 1)
        return r.Error("the \"end\" line is not {\"end\":{...}}");
      Fields e(counts, r);
      uint64_t sections = 0, info = 0, windows = 0;
      if (!(s = e.Uint("sections", &sections)).ok() || !(s = e.Uint("info", &info)).ok() ||
          !(s = e.Uint("windows", &windows)).ok() || !(s = e.Done()).ok())
        return s;
      if (sections != c.sections.size() || info != c.info.size() ||
          windows != c.window_ops.size()) {
        return r.Error(fmt::format(
            "the savepoint says it holds {} sections, {} info lines and {} window rows; it "
            "holds {}, {} and {}",
            sections, info, windows, c.sections.size(), c.info.size(), c.window_ops.size()));
      }
      break;
    } else {
      return r.Error("not a savepoint line (section, info, window or end)");
    }
    last = std::move(key);
  }
  if (!(s = r.Next(&obj, &eof)).ok()) return s;
  if (!eof) return r.Error("a line after the \"end\" line");

  std::unique_ptr<StateStore> store;
  if (!(s = StateStore::Open(state_path, true, &store)).ok()) return s;
  if (!store->is_new()) {
    return Status::Refused(
        fmt::format("state file {} holds a job: import makes a new state file", state_path));
  }
  c.compact = true;
  if (!(s = store->CheckQuery(query)).ok() || !(s = store->Commit(c)).ok()) {
    store.reset();
    for (const char* suffix : {"", "-wal", "-shm"}) ::unlink((state_path + suffix).c_str());
    return s;
  }
  return Status::Ok();
}

}  // namespace logtide
