#include "output/record_chain.h"

namespace logtide {

RecordChain::RecordChain(const Query& query) : query_(query) {
  if (query.changes != ChangeFormat::kSnapshot)
    changes_ = std::make_unique<ChangeWriter>(query.changes, query.format, query.window.is_session(),
                                              query.by.size());
}

Status RecordChain::Open(bool table_per_firing, OutputFile* results) {
  const Query& q = query_;
  if (q.window_label) {
    Status s = WindowLabel::Create(q.window, &label_);
    if (!s.ok()) return s;
  }
  if (q.format == OutputFormat::kTable) {
    table_ = std::make_unique<TableWriter>(KeyNames(q), AggNames(q), Revised(q), table_per_firing,
                                           results);
    if (q.local_times) table_->set_local_zone(&q.window.zone);
    if (q.window_label) table_->set_window_label(&label_);
    front_ = table_.get();
  } else {
    writer_ = std::make_unique<RecordWriter>(q.format, KeyNames(q), AggNames(q), Revised(q),
                                             results);
    if (q.local_times) writer_->set_local_zone(&q.window.zone);
    if (q.window_label) writer_->set_window_label(&label_);
    front_ = writer_.get();
    if (changes_ != nullptr) {
      changes_->set_writer(writer_.get(), results);
      front_ = changes_.get();
    }
  }
  if (!q.having.empty()) {
    Status s = HavingFilter::Create(q.having, RecordFieldsOf(q), front_, &having_);
    if (!s.ok()) return s;
    if (q.local_times) having_->set_local_zone(&q.window.zone);
    if (q.window_label) having_->set_window_label(&label_);
    having_->set_every_record(changes_ != nullptr);
    front_ = having_.get();
  }
  if (writer_ != nullptr && results->bytes_written() == 0) {
    if (changes_ != nullptr) {
      changes_->WriteHeader();
    } else {
      writer_->WriteHeader();
    }
  }
  return Status::Ok();
}

}  // namespace logtide
