// Turning one input line into an event: the fields the query reads, extracted once, the event
// time parsed and the group key encoded; or the reason the line is bad. Parsing is pure (the
// same line always gives the same event), so lines may be parsed on any thread, one
// EventParser per thread, and applied to the windows in input order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/config.h"
#include "expr/expr.h"
#include "json/extractor.h"
#include "json/value.h"
#include "lineformat/line_converter.h"
#include "time/time_format.h"
#include "util/status.h"

namespace logtide {

struct Event {
  enum class Kind : uint8_t { kBlank, kBad, kEvent, kFiltered };  // kFiltered: --where said no
  Kind kind = Kind::kBlank;
  Nanos time = 0;  // kEvent; kFiltered: its time, kMinusInfinity when that cannot be read
  std::string_view key;          // kEvent: EncodeValue of each --by field, in order
  size_t key_hash = 0;           // kEvent: KeyTable::Hash(key), computed by the parser
  // kEvent, 0 when not given: every event with this token has this key (tokens are unique in
  // the process); key_slot < KeyTable::kCacheSlots is where KeyTable caches its id.
  uint64_t key_token = 0;
  uint32_t key_slot = 0;
  const ValueRef* aggs = nullptr;  // kEvent: one input per aggregate (null for a plain count)
  std::string_view reason;       // kBad: why the line is not an event
  BadKind bad_kind = BadKind::kNotJson;  // kBad: what kind of reason it is
};

class EventParser {
 public:
  // Registers the fields `config` reads. Errors: InvalidArgument naming the flag (--time, --by,
  // --agg) whose field path is unusable.
  static Status Create(const EngineConfig& config, std::unique_ptr<EventParser>* out);

  // Parses one line (without its '\n'). What *event points to stays valid until the next call.
  // `index`, when given, may hold the tokens of a run of lines including this one
  // (FieldExtractor::Extract). A line of --input-format logfmt, csv or tsv is converted into
  // the JSON object it stands for first (lineformat/), a CSV or TSV row with its file's
  // `header`; that object is read as an NDJSON line is.
  // REQUIRES: `capacity` bytes are readable at `data`, capacity >= size + kPadding; header is
  // not null under --input-format csv or tsv (the header line itself is the caller's to skip).
  // `format`: the line's (its input's, EngineConfig::FormatOf).
  void Parse(const char* data, size_t size, size_t capacity, Event* event,
             StructuralIndex* index = nullptr, const CsvHeader* header = nullptr,
             InputFormat format = InputFormat::kNdjson);

  size_t num_aggs() const { return agg_slots_.size(); }
  static constexpr size_t kPadding = FieldExtractor::kPadding;

  // The fields of --by and --agg, in that order (a field used twice is listed once), and
  // whether some event this parser made had each one (not null, not absent). Checked until
  // every one was seen: one predictable branch per event after that.
  const std::vector<std::string>& checked_fields() const { return checked_names_; }
  const std::vector<uint8_t>& fields_seen() const { return seen_; }
  // Per checked field: whether it is read in every line (1), or only in those --where keeps
  // (0: the other fields, when there is a --where).
  const std::vector<uint8_t>& checked_every_line() const { return checked_every_line_; }

  // Each expression of the query (--where, derived keys, filters), as the flag and text that
  // gave it, and how many operands of the wrong type (or divisions by zero) it met so far.
  const std::vector<std::string>& expr_labels() const { return expr_labels_; }
  std::vector<uint64_t> expr_mismatches() const;
  // The same per expression: its comparisons of a number with a string literal or of a string
  // with a number literal (Expr::literal_kind_misses).
  std::vector<uint64_t> expr_literal_misses() const;

 private:
  explicit EventParser(const EngineConfig& config) : config_(config) {}
  // Reads the event time from the time field's value. Errors: DataError (kNoTime, kBadTime,
  // kTimeRange).
  Status ParseTime(const ValueRef& value, Nanos* t) const;

  const EngineConfig& config_;
  std::vector<std::string> checked_names_;
  std::vector<int> checked_slots_;
  std::vector<uint8_t> seen_;
  std::vector<uint8_t> checked_every_line_;
  bool all_seen_ = false;
  // Marks the checked fields the current line has.
  void NoteSeen() {
    if (all_seen_) [[likely]]
      return;
    all_seen_ = true;
    for (size_t i = 0; i < checked_slots_.size(); ++i) {
      seen_[i] |= !values_[checked_slots_[i]].is_null();
      all_seen_ = all_seen_ && seen_[i];
    }
  }
  FieldExtractor extractor_;
  LineConverter converter_;  // --input-format other than ndjson
  TimeFormat time_format_;
  int time_slot_ = -1;
  std::vector<int> key_slots_;
  std::vector<int> agg_slots_;  // a placeholder slot (always null) for a plain count
  // --where's expressions, derived keys (null where the key is a plain field) and filter
  // aggregates' conditions (null where unfiltered), each bound to the extractor's slots.
  std::vector<Expr> where_;
  std::vector<std::unique_ptr<Expr>> key_exprs_;
  std::vector<std::unique_ptr<Expr>> agg_filters_;
  bool derived_keys_ = false;
  std::vector<std::string> expr_labels_;  // in the order: where_, key_exprs_, agg_filters_
  bool aggs_in_place_ = false;  // agg_slots_ are consecutive: the inputs are read in values_
  // Reused per line: no allocation in the steady state.
  std::vector<ValueRef> values_;
  std::vector<ValueRef> agg_inputs_;
  std::string key_;
  // Recent single string keys: their bytes, encoding, hash and token (Event::key_token).
  struct KeyMemo {
    uint64_t head = 0;  // raw's first 8 bytes, zero-filled
    std::string raw, encoded;
    size_t hash = 0;
    uint64_t token = 0;
    bool valid = false;
  };
  static constexpr int kTokenBits = 48;
  static constexpr uint64_t kTokenMask = (uint64_t{1} << kTokenBits) - 1;
  uint64_t next_token_ = 0;  // the last token given (the parser's number in the high bits)
  bool tokens_ = false;      // tokens are left to give
  static constexpr int kKeyMemoSetBits = 5;
  static constexpr size_t kKeyMemo = 2 << kKeyMemoSetBits;  // sets of two ways
  KeyMemo key_memo_[kKeyMemo];
  uint8_t key_memo_mru_[kKeyMemo / 2] = {};  // per set: the way used last
  // The memo pays only when it hits: with many distinct keys (users) its misses cost more than
  // encoding each key. Every kMemoWindow events it is judged; after a window of mostly misses
  // it rests for kMemoRest events, then is tried again.
  bool MemoOn() {
    if (++memo_events_ < kMemoWindow) return memo_rest_ == 0;
    memo_events_ = 0;
    if (memo_rest_ > 0) {
      --memo_rest_;
    } else if (memo_misses_ > kMemoWindow / 2) {
      memo_rest_ = kMemoRest;
    }
    memo_misses_ = 0;
    return memo_rest_ == 0;
  }
  static constexpr uint32_t kMemoWindow = 4096, kMemoRest = 256;  // windows
  uint32_t memo_events_ = 0, memo_misses_ = 0, memo_rest_ = 0;
  std::string reason_;
};

}  // namespace logtide
