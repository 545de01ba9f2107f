#include "output/change_writer.h"

#include "json/value.h"
#include "util/bytes.h"

namespace logtide {

void ChangeWriter::set_writer(RecordWriter* writer, OutputFile* out) {
  writer_ = writer;
  out_ = out;
  writer_->set_flush_each_record(false);
}

void ChangeWriter::WriteHeader() {
  if (out_format_ != OutputFormat::kCsv) return;
  out_->buffer()->append("op,");
  writer_->WriteHeader();
}

void ChangeWriter::BeginRecord(Nanos start, Nanos end) {
  start_ = start;
  end_ = end;
  key_.clear();
  mark_ = out_->buffer()->size();
  writer_->BeginRecord(start, end);
}

void ChangeWriter::Key(const ValueRef& v) {
  EncodeValue(v, &key_);
  writer_->Key(v);
}

void ChangeWriter::WriteChange(char op, const std::string* before, const std::string* after) {
  std::string* b = out_->buffer();
  if (format_ == ChangeFormat::kRetract) {
    const std::string& body = before != nullptr ? *before : *after;
    if (out_format_ == OutputFormat::kCsv) {
      b->push_back(op);
      b->push_back(',');
      b->append(body);
      b->push_back('\n');
    } else {
      b->append(op == '-' ? "{\"op\":\"-\"," : "{\"op\":\"+\",");
      b->append(body);
      b->append("}\n");
    }
    return;
  }
  b->append("{\"op\":\"");
  b->push_back(op);
  b->append("\",\"before\":");
  if (before != nullptr) {
    b->push_back('{');
    b->append(*before);
    b->push_back('}');
  } else {
    b->append("null");
  }
  b->append(",\"after\":");
  if (after != nullptr) {
    b->push_back('{');
    b->append(*after);
    b->append("}}\n");
  } else {
    b->append("null}\n");
  }
}

void ChangeWriter::EndRecord(const RecordRevision& revision) {
  writer_->EndRecord(revision);
  // Take the record's bytes out of the buffer: its fields without the braces, or its row.
  std::string* b = out_->buffer();
  const bool json = out_format_ == OutputFormat::kNdjson;
  const size_t from = mark_ + (json ? 1 : 0);
  const size_t to = b->size() - (json ? 2 : 1);
  body_.assign(*b, from, to - from);
  b->resize(mark_);

  // The records of this window and key written before, by window start.
  before_.clear();
  if (sessions_) {
    for (auto it = last_.lower_bound(IdView{key_, start_});
         it != last_.end() && it->first.key == key_ && it->first.start < end_; ++it)
      before_.push_back(it);
  } else if (auto it = last_.find(IdView{key_, start_}); it != last_.end() && it->second.end == end_) {
    before_.push_back(it);
  }

  const bool write = !revision.withheld;
  Map::iterator same = last_.end();  // the predecessor with the same bounds
  for (Map::iterator it : before_) {
    if (write && it->first.start == start_ && it->second.end == end_) {
      same = it;
      if (format_ == ChangeFormat::kDebezium) continue;  // its "u" comes below
    }
    WriteChange(format_ == ChangeFormat::kRetract ? '-' : 'd', &it->second.body, nullptr);
  }
  if (write) {
    if (format_ == ChangeFormat::kRetract) {
      WriteChange('+', nullptr, &body_);
    } else if (same != last_.end()) {
      WriteChange('u', &same->second.body, &body_);
    } else {
      WriteChange('c', nullptr, &body_);
    }
  }

  // Keep the new record until its window and key can no longer change.
  Map::iterator keep = last_.end();
  for (Map::iterator it : before_) {
    if (write && !revision.final && it->first.start == start_) {
      keep = it;  // reused: same window start, so the same place in the map
    } else {
      last_.erase(it);
    }
  }
  if (write && !revision.final) {
    if (keep == last_.end()) keep = last_.emplace(Id{key_, start_}, Last{end_, {}}).first;
    keep->second.end = end_;
    keep->second.body.swap(body_);
  }
  out_->MaybeFlush();
}

// Section "changes", version 1:
//   u64 count, then per kept record (sorted by key bytes, then window start):
//   bytes key (EncodeValue form), i64 window start, i64 window end, bytes record (as
//   ChangeWriter::Last::body: the fields of the record as written, without its braces, or
//   the CSV row without its newline).
Status ChangeWriter::Save(std::string* data) {
  ByteWriter w(data);
  w.U64(last_.size());
  for (const auto& [id, last] : last_) {
    w.Bytes(id.key);
    w.I64(id.start);
    w.I64(last.end);
    w.Bytes(last.body);
  }
  return Status::Ok();
}

bool ChangeWriter::IsRecordBody(OutputFormat out_format, std::string_view body,
                                JsonChecker* checker) {
  if (out_format != OutputFormat::kCsv) {
    std::string object;
    object.reserve(body.size() + 2);
    object.push_back('{');
    object.append(body);
    object.push_back('}');
    return !body.empty() && checker->IsValid(object) && object.find('\n') == std::string::npos;
  }
  bool quoted = false;
  for (const char ch : body) {
    if (ch == '"') {
      quoted = !quoted;
    } else if (!quoted && (ch == '\n' || ch == '\r')) {
      return false;
    }
  }
  return !body.empty() && !quoted;
}

Status ChangeWriter::Load(std::string_view data, uint32_t) {
  ByteReader r(data);
  JsonChecker checker(kRecordDepth);
  const uint64_t n = r.U64();
  Map loaded;
  for (uint64_t i = 0; i < n && r.ok(); ++i) {
    Id id;
    id.key = std::string(r.Bytes());
    id.start = r.I64();
    Last last;
    last.end = r.I64();
    last.body = std::string(r.Bytes());
    if (!r.ok()) break;
    if (!IsEncodedKey(id.key, key_fields_) || last.end <= id.start ||
        !IsRecordBody(out_format_, last.body, &checker) ||
        !loaded.emplace(std::move(id), std::move(last)).second)
      return Status::Corruption("a kept record does not decode");
  }
  if (!r.ok() || !r.at_end()) return Status::Corruption("it does not decode");
  last_ = std::move(loaded);
  return Status::Ok();
}

void ChangeWriter::DescribeSection(OutputFormat out_format, StateCodec* c) {
  JsonChecker checker(kRecordDepth);
  const uint64_t n = c->U64("count");
  c->ListOf("records", n);
  for (uint64_t i = 0; i < n && c->ok(); ++i) {
    c->Object("");
    c->KeyBytes("key");
    const int64_t start = c->I64("start");
    if (c->I64("end") <= start) c->Fail("the window does not end after its start");
    if (!IsRecordBody(out_format, c->Bytes("record"), &checker) && c->ok()) {
      c->Fail(out_format == OutputFormat::kCsv
                  ? "not a CSV row as the job writes it (its quotes closed, no line break "
                    "outside them)"
                  : "not a record's fields as the job writes them (the members of a JSON "
                    "object, without its braces, on one line)");
    }
    c->End();
  }
  c->End();
}

}  // namespace logtide
