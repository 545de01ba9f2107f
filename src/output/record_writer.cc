#include "output/record_writer.h"

#include <cmath>

#include "json/json_text.h"

namespace logtide {

RecordWriter::RecordWriter(OutputFormat format, std::vector<std::string> key_names,
                           std::vector<std::string> agg_names, bool with_revision, OutputFile* out)
    : format_(format), with_revision_(with_revision), out_(out) {
  names_ = {"window_start", "window_end"};
  names_.insert(names_.end(), key_names.begin(), key_names.end());
  names_.insert(names_.end(), agg_names.begin(), agg_names.end());
  if (with_revision_) names_.insert(names_.end(), {"revision", "phase", "final"});
  SetPrefixes();
}

void RecordWriter::SetPrefixes() {
  json_prefix_.clear();
  for (size_t i = 0; i < names_.size(); ++i) {
    std::string p = i == 0 ? "{" : ",";
    AppendJsonString(names_[i], &p);
    p.push_back(':');
    json_prefix_.push_back(std::move(p));
  }
}

void RecordWriter::set_window_label(const WindowLabel* label) {
  if (label_ == nullptr) names_.insert(names_.begin() + 2, "window_label");
  label_ = label;
  first_data_ = 3;
  SetPrefixes();
  have_bounds_ = false;
}

void RecordWriter::AppendCsvField(std::string_view s) {
  std::string* b = out_->buffer();
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
    b->append(s);
    return;
  }
  b->push_back('"');
  for (char c : s) {
    if (c == '"') b->push_back('"');
    b->push_back(c);
  }
  b->push_back('"');
}

void RecordWriter::WriteHeader() {
  if (format_ != OutputFormat::kCsv) return;
  for (size_t i = 0; i < names_.size(); ++i) {
    if (i > 0) out_->buffer()->push_back(',');
    AppendCsvField(names_[i]);
  }
  out_->buffer()->push_back('\n');
  out_->MaybeFlush();
}

void RecordWriter::NextColumn() {
  std::string* b = out_->buffer();
  if (format_ == OutputFormat::kNdjson) {
    b->append(json_prefix_[column_]);
  } else if (column_ > 0) {
    b->push_back(',');
  }
  ++column_;
}

void RecordWriter::BeginRecord(Nanos start, Nanos end) {
  if (!have_bounds_ || start != last_start_ || end != last_end_) {
    last_bounds_.clear();
    for (Nanos t : {start, end}) {
      if (format_ == OutputFormat::kNdjson) {
        last_bounds_.append(json_prefix_[t == start && last_bounds_.empty() ? 0 : 1]);
        last_bounds_.push_back('"');
      } else if (!last_bounds_.empty()) {
        last_bounds_.push_back(',');
      }
      if (local_zone_ != nullptr) {
        local_zone_->AppendLocalRfc3339(t, &last_bounds_);
      } else {
        AppendRfc3339(t, &last_bounds_);
      }
      if (format_ == OutputFormat::kNdjson) last_bounds_.push_back('"');
    }
    if (label_ != nullptr) {
      // The label's characters are digits, '-', 'W', 'T' and ':': nothing to escape.
      if (format_ == OutputFormat::kNdjson) {
        last_bounds_.append(json_prefix_[2]);
        last_bounds_.push_back('"');
      } else {
        last_bounds_.push_back(',');
      }
      label_->Append(start, &last_bounds_);
      if (format_ == OutputFormat::kNdjson) last_bounds_.push_back('"');
    }
    last_start_ = start;
    last_end_ = end;
    have_bounds_ = true;
  }
  out_->buffer()->append(last_bounds_);
  column_ = first_data_;
}

void RecordWriter::EndRecord(const RecordRevision& revision) {
  if (with_revision_) {
    Int(revision.number);
    NextColumn();
    std::string* b = out_->buffer();
    const bool json = format_ == OutputFormat::kNdjson;
    if (json) b->push_back('"');
    b->append(RecordPhaseName(revision.phase));
    if (json) b->push_back('"');
    NextColumn();
    b->append(revision.final ? "true" : "false");
  }
  out_->buffer()->append(format_ == OutputFormat::kNdjson ? "}\n" : "\n");
  if (flush_each_record_) out_->MaybeFlush();
}

void RecordWriter::Null() {
  NextColumn();
  if (format_ == OutputFormat::kNdjson) out_->buffer()->append("null");
}

void RecordWriter::Int(__int128 v) {
  NextColumn();
  AppendInt128(v, out_->buffer());
}

void RecordWriter::Double(double v) {
  NextColumn();
  // A non-finite double is null in both formats (empty in CSV).
  if (format_ == OutputFormat::kCsv && !std::isfinite(v)) return;
  AppendDouble(v, out_->buffer());
}

void RecordWriter::Value(const ValueRef& v) {
  if (v.type == ValueType::kNull) return Null();
  NextColumn();
  std::string* b = out_->buffer();
  if (format_ == OutputFormat::kNdjson) {
    AppendJsonValue(v, b);
    return;
  }
  switch (v.type) {
    case ValueType::kString:
    case ValueType::kRaw:
      AppendCsvField(v.s);
      break;
    default:
      AppendJsonValue(v, b);
      break;
  }
}

}  // namespace logtide
