// The writers a job's records go through, as its query says, front to back: --having's filter,
// the change format's writer (--changes retract|debezium), and the NDJSON/CSV writer or, with
// --format table, the table writer. One object, so that the read loop holds one sink.
#pragma once

#include <memory>

#include "output/change_writer.h"
#include "output/having_filter.h"
#include "output/output_file.h"
#include "output/record_writer.h"
#include "output/table_writer.h"
#include "query/query.h"
#include "util/status.h"

namespace logtide {

class RecordChain {
 public:
  // The change format's writer is made here (it is a checkpoint component before any output
  // is opened); the others by Open.
  explicit RecordChain(const Query& query);

  // Makes the writers, writing to `results`. `table_per_firing`: a table is written at each
  // firing (a job that checkpoints or never ends) instead of once at the end of the run.
  // Writes the NDJSON/CSV header when `results` is empty. Errors: --having's, as
  // HavingFilter::Create.
  Status Open(bool table_per_firing, OutputFile* results);

  // Where the records go. REQUIRES: after Open.
  RecordSink* front() const { return front_; }
  // The change format's writer, a checkpoint component; nullptr without one.
  ChangeWriter* changes() const { return changes_.get(); }
  // --having's filter; nullptr without one.
  const HavingFilter* having() const { return having_.get(); }
  // Ends the run's output (a table written at the end).
  void Finish() {
    if (table_ != nullptr) table_->Finish();
  }

 private:
  const Query& query_;
  WindowLabel label_;  // --window-label's, for the writers and the filter
  std::unique_ptr<RecordWriter> writer_;  // NDJSON or CSV
  std::unique_ptr<TableWriter> table_;    // --format table, instead of writer_
  std::unique_ptr<ChangeWriter> changes_;  // in front of writer_
  std::unique_ptr<HavingFilter> having_;   // in front of the others
  RecordSink* front_ = nullptr;
};

}  // namespace logtide
