// --having: a filter on result records, as SQL's HAVING and `mlr filter` after `stats1`. It
// sits between the FiringWriter and the RecordWriter, so it sees records in output order on
// whichever thread writes them, and passes on the ones every expression holds for.
//
// A record's fields are the values of the expressions' paths, by their output names:
// window_start and window_end (RFC 3339 text, as written), with --window-label window_label
// (its text, as written), the keys, the aggregates, and with
// revisions revision, phase and final. A key's --by path reads it too (--by req.method: the
// field "req.method", written ."req.method" or req.method).
//
// With revisions (--emit update, --early) only records with "final":true are tested, and the
// others are not written: a consumer never holds a provisional row that a later revision of
// the same window and key would stop matching (man/logtide.1, --having). Under --changes
// retract|debezium (set_every_record) every record is tested, since a change can be taken
// back: one that does not match is passed on withheld (RecordRevision::withheld), for the
// ChangeWriter to take back its window and key's earlier record.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "expr/expr.h"
#include "output/record_writer.h"
#include "query/query.h"
#include "util/status.h"

namespace logtide {

// Returns how messages name --having number `i` of `query`: --having and the text as the user
// wrote it (the canonical text when that is not known), quoted and escaped for a message.
std::string HavingLabel(const Query& query, size_t i);

class HavingFilter final : public RecordSink {
 public:
  // Parses `exprs` (--having texts, canonical or as written) and binds their paths to
  // `fields`. Errors: InvalidArgument for a text that does not parse or a path that names no
  // field of the records, listing the fields. `next` (may be null for checking only) must
  // outlive the filter.
  static Status Create(const std::vector<std::string>& exprs, const RecordFields& fields,
                       RecordSink* next, std::unique_ptr<HavingFilter>* out);

  // --local-times: window_start and window_end are compared as they are written, in `zone`'s
  // local time with its offset. `zone` must outlive the filter.
  void set_local_zone(const TimeZone* zone) { local_zone_ = zone; }
  // --window-label: the text of window_label, for records whose fields have one
  // (RecordFields::first_key 3). `label` must outlive the filter. REQUIRES: set for such
  // records before the first one.
  void set_window_label(const WindowLabel* label) { label_ = label; }
  // --changes retract|debezium: tests every record, and passes on those that do not match
  // withheld (the next sink must be a ChangeWriter).
  void set_every_record(bool every) { every_record_ = every; }

  void BeginRecord(Nanos start, Nanos end) override;
  void Key(const ValueRef& v) override;
  void EndRecord(const RecordRevision& revision) override;
  void EndFiring() override {
    if (next_ != nullptr) next_->EndFiring();
  }
  void Null() override;
  void Int(__int128 v) override;
  void Double(double v) override;
  void Value(const ValueRef& v) override;

  // Per expression (in the order given to Create): its operands of the wrong type taken as
  // null, and its comparisons of a number with a string literal or of a string with a number
  // literal (Expr::type_errors, Expr::literal_kind_misses). Read after the writer's thread is
  // drained.
  std::vector<uint64_t> type_errors() const;
  std::vector<uint64_t> literal_kind_misses() const;

  // Records passed on, and records held back (not matching, or not final with revisions),
  // since the filter was made. Read after the writer's thread is drained.
  uint64_t kept() const { return kept_.load(std::memory_order_relaxed); }
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  HavingFilter() = default;

  // How a column reached the filter, to pass it on by the same call.
  enum class Call : uint8_t { kKey, kNull, kInt, kDouble, kValue };
  struct Column {
    Call call = Call::kNull;
    __int128 i = 0;
    double d = 0;
    ValueRef v;        // what the expressions see (strings point into `text`)
    std::string text;  // the bytes of a string or raw value, reused from record to record
  };
  // The next column's slot, for Key and the ValueSink calls.
  Column& Next() { return columns_[column_++]; }
  void Keep(Column& c, const ValueRef& v);

  std::vector<Expr> exprs_;
  RecordSink* next_ = nullptr;
  bool with_revision_ = false;
  bool every_record_ = false;
  bool bounds_used_ = false;  // an expression reads window_start or window_end
  bool label_used_ = false;   // an expression reads window_label
  size_t first_data_ = 2;     // the first field after the window's (RecordFields::first_key)
  const WindowLabel* label_ = nullptr;
  const TimeZone* local_zone_ = nullptr;  // null: bounds in UTC
  Nanos start_ = 0, end_ = 0;
  std::vector<Column> columns_;  // one per field; revision fields filled at EndRecord
  std::vector<ValueRef> values_;
  size_t column_ = 0;
  std::atomic<uint64_t> kept_{0}, dropped_{0};
};

}  // namespace logtide
