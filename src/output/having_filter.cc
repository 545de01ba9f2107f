#include "output/having_filter.h"

#include <fmt/format.h>

#include <cmath>

#include "json/field_path.h"
#include "time/timestamp.h"
#include "util/quote.h"

namespace logtide {

std::string HavingLabel(const Query& query, size_t i) {
  const std::string& text =
      i < query.having_written.size() ? query.having_written[i] : query.having[i];
  return "--having " + QuoteForMessage(text, /*backslash_quotes=*/true);
}

std::vector<uint64_t> HavingFilter::type_errors() const {
  std::vector<uint64_t> n;
  for (const Expr& e : exprs_) n.push_back(e.type_errors());
  return n;
}

std::vector<uint64_t> HavingFilter::literal_kind_misses() const {
  std::vector<uint64_t> n;
  for (const Expr& e : exprs_) n.push_back(e.literal_kind_misses());
  return n;
}

Status HavingFilter::Create(const std::vector<std::string>& exprs, const RecordFields& fields,
                            RecordSink* next, std::unique_ptr<HavingFilter>* out) {
  std::unique_ptr<HavingFilter> f(new HavingFilter());
  f->next_ = next;
  f->with_revision_ = fields.with_revision;
  f->first_data_ = fields.first_key;
  f->columns_.resize(fields.names.size());
  f->values_.resize(fields.names.size());
  for (const std::string& text : exprs) {
    Expr e;
    if (Status s = Expr::Parse(text, &e); !s.ok()) return s;
    std::vector<int> slots;
    for (const std::string& p : e.paths()) {
      const int slot = FindRecordField(fields, p);
      if (slot < 0) {
        std::string names;
        for (const std::string& n : fields.names) names += (names.empty() ? "" : ", ") + n;
        return Status::InvalidArgument(fmt::format(
            "{} is no field of the records: --having reads the fields a record has ({})",
            PathAsExpr(p), names));
      }
      if (slot < 2) f->bounds_used_ = true;
      if (slot >= 2 && static_cast<size_t>(slot) < fields.first_key) f->label_used_ = true;
      slots.push_back(slot);
    }
    e.Bind(slots);
    f->exprs_.push_back(std::move(e));
  }
  *out = std::move(f);
  return Status::Ok();
}

void HavingFilter::Keep(Column& c, const ValueRef& v) {
  c.v = v;
  if (!v.s.empty()) {
    // The bytes die with the writer's next call (a decoded key, an aggregate's result): keep
    // a copy in the column's buffer, which keeps its capacity.
    c.text.assign(v.s);
    c.v.s = c.text;
  }
}

void HavingFilter::BeginRecord(Nanos start, Nanos end) {
  start_ = start;
  end_ = end;
  column_ = first_data_;
}

void HavingFilter::Key(const ValueRef& v) {
  Column& c = Next();
  c.call = Call::kKey;
  Keep(c, v);
}

void HavingFilter::Null() {
  Column& c = Next();
  c.call = Call::kNull;
  c.v = ValueRef::Null();
}

void HavingFilter::Int(__int128 v) {
  Column& c = Next();
  c.call = Call::kInt;
  c.i = v;
  // An integer beyond 64 bits (a sum) compares as the double nearest to it.
  c.v = v >= INT64_MIN && v <= INT64_MAX ? ValueRef::Int(static_cast<int64_t>(v))
                                         : ValueRef::Number(static_cast<double>(v));
}

void HavingFilter::Double(double v) {
  Column& c = Next();
  c.call = Call::kDouble;
  c.d = v;
  // Written as null when not finite (RecordWriter), so read as null.
  c.v = std::isfinite(v) ? ValueRef::Number(v) : ValueRef::Null();
}

void HavingFilter::Value(const ValueRef& v) {
  Column& c = Next();
  c.call = Call::kValue;
  Keep(c, v);
}

void HavingFilter::EndRecord(const RecordRevision& revision) {
  const size_t data_end = column_;
  bool pass = !with_revision_ || every_record_ || revision.final;
  if (pass) {
    if (with_revision_) {
      columns_[data_end].v = ValueRef::Int(revision.number);
      columns_[data_end + 1].v = ValueRef::String(RecordPhaseName(revision.phase));
      columns_[data_end + 2].v = ValueRef::Bool(revision.final);
    }
    if (bounds_used_) {
      for (int b = 0; b < 2; ++b) {
        Column& c = columns_[b];
        c.text.clear();
        if (local_zone_ != nullptr) {
          local_zone_->AppendLocalRfc3339(b == 0 ? start_ : end_, &c.text);
        } else {
          AppendRfc3339(b == 0 ? start_ : end_, &c.text);
        }
        c.v = ValueRef::String(c.text);
      }
    }
    if (label_used_) {
      Column& c = columns_[2];
      c.text.clear();
      label_->Append(start_, &c.text);
      c.v = ValueRef::String(c.text);
    }
    for (size_t j = 0; j < columns_.size(); ++j) values_[j] = columns_[j].v;
    for (Expr& e : exprs_) {
      if (!e.Test(values_.data())) {
        pass = false;
        break;
      }
    }
  }
  if (!pass) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    if (!every_record_) return;
  } else {
    kept_.fetch_add(1, std::memory_order_relaxed);
  }
  next_->BeginRecord(start_, end_);
  for (size_t j = first_data_; j < data_end; ++j) {
    const Column& c = columns_[j];
    switch (c.call) {
      case Call::kKey:
        next_->Key(c.v);
        break;
      case Call::kNull:
        next_->Null();
        break;
      case Call::kInt:
        next_->Int(c.i);
        break;
      case Call::kDouble:
        next_->Double(c.d);
        break;
      case Call::kValue:
        next_->Value(c.v);
        break;
    }
  }
  RecordRevision passed = revision;
  passed.withheld = !pass;
  next_->EndRecord(passed);
}

}  // namespace logtide
