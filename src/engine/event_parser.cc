#include "engine/event_parser.h"

#include <fmt/format.h>

#include <atomic>
#include <cstring>

#include "input/line_reader.h"
#include "json/field_path.h"
#include "keys/key_table.h"
#include "util/quote.h"

namespace logtide {

static_assert(LineReader::kPadding >= FieldExtractor::kPadding,
              "the lines a reader returns must be as padded as the extractor reads them");

Status EventParser::Create(const EngineConfig& c, std::unique_ptr<EventParser>* out) {
  static_assert(kKeyMemo <= KeyTable::kCacheSlots, "a memo entry is a KeyTable cache slot");
  // The engine adds the plain count when no --agg is given.
  if (c.aggs.empty()) return Status::InvalidArgument("no aggregate to compute");
  std::unique_ptr<EventParser> p(new EventParser(c));
  // Each parser's key tokens are its own (its number in the high 16 bits), so parsers on
  // worker threads never give one token to two keys. Past 2^16 parsers in one process, or
  // after 2^48 - 1 keys from one parser, that parser gives no more tokens.
  static std::atomic<uint64_t> parsers{0};
  const uint64_t number = parsers.fetch_add(1, std::memory_order_relaxed) + 1;
  p->tokens_ = number <= 0xFFFF;
  p->next_token_ = p->tokens_ ? number << kTokenBits : 0;
  Status s = TimeFormat::Create(c.time_format, &p->time_format_);
  if (!s.ok()) return s;
  if (c.window.has_zone) p->time_format_.set_zone(c.window.zone);  // --tz: local times
  auto add_path = [&](const std::string& path, const char* flag, int* slot) -> Status {
    Status st = p->extractor_.AddPath(path, slot, slot == &p->time_slot_);
    if (!st.ok()) return Status::InvalidArgument(fmt::format("{}: {}", flag, st.message()));
    return st;
  };
  if (!(s = add_path(c.time_field, "--time", &p->time_slot_)).ok()) return s;
  // An expression's paths become extractor slots, and the expression reads them there.
  std::vector<std::pair<std::string, int>> expr_fields;  // for the absent-field check
  auto compile = [&](const std::string& text, const char* flag, Expr* e) -> Status {
    Status st = Expr::Parse(text, e);
    if (!st.ok()) return Status::InvalidArgument(fmt::format("{} {}: {}", flag, QuoteForMessage(text, /*backslash_quotes=*/true), st.message()));
    std::vector<int> slots;
    for (const std::string& path : e->paths()) {
      int slot;
      if (!(st = add_path(path, flag, &slot)).ok()) return st;
      slots.push_back(slot);
      expr_fields.emplace_back(path, slot);
    }
    e->Bind(slots);
    return Status::Ok();
  };
  for (const std::string& w : c.where) {
    p->where_.emplace_back();
    if (!(s = compile(w, "--where", &p->where_.back())).ok()) return s;
  }
  for (size_t i = 0; i < c.by.size(); ++i) {
    int slot = -1;
    std::unique_ptr<Expr> e;
    if (i < c.by_expr.size() && !c.by_expr[i].empty()) {
      e = std::make_unique<Expr>();
      if (!(s = compile(c.by_expr[i], "--by", e.get())).ok()) return s;
      p->derived_keys_ = true;
    } else if (!(s = add_path(c.by[i], "--by", &slot)).ok()) {
      return s;
    }
    p->key_slots_.push_back(slot);
    p->key_exprs_.push_back(std::move(e));
  }
  for (const AggSpec& a : c.aggs) {
    int slot = -1;
    if (a.field.empty()) {
      p->extractor_.AddPlaceholder(&slot);  // a plain count: its input is null
    } else if (!(s = add_path(a.field, "--agg", &slot)).ok()) {
      return s;
    }
    p->agg_slots_.push_back(slot);
    std::unique_ptr<Expr> f;
    if (!a.filter.empty()) {
      f = std::make_unique<Expr>();
      if (!(s = compile(a.filter, "--agg", f.get())).ok()) return s;
    }
    p->agg_filters_.push_back(std::move(f));
  }
  // With --where, a line's other fields are read only when the filter keeps it: a filter that
  // rejects most lines spares most of the reading.
  std::vector<uint8_t> filter_reads(p->extractor_.num_slots(), 0);
  for (const Expr& w : p->where_) {
    for (const std::string& path : w.paths()) {
      for (int slot = 0; slot < p->extractor_.num_slots(); ++slot) {
        if (p->extractor_.path(slot) == path) filter_reads[slot] = 1;
      }
    }
  }
  // The event time is read in every line all the same: a line the filter rejects moves the
  // watermark as any other (progress is a property of the input, not of the query).
  for (int slot = 0; !p->where_.empty() && slot < p->extractor_.num_slots(); ++slot) {
    if (!filter_reads[slot] && slot != p->time_slot_) p->extractor_.Defer(slot);
  }
  if (!(s = p->extractor_.Finish()).ok()) return s;
  // A converted line's object holds the members the query reads: the first key of each path.
  if (!c.AllNdjson()) {
    std::vector<std::string> keys;
    bool all = false;
    for (int slot = 0; slot < p->extractor_.num_slots(); ++slot) {
      if (p->extractor_.path(slot).empty()) continue;  // a placeholder
      FieldPath path;
      size_t at;
      if (!ParseFieldPath(p->extractor_.path(slot), &path, &at).ok() || path.empty()) {
        all = true;  // (AddPath parsed it) the whole object
        break;
      }
      // An index first is an element of the root, which is an object here: never there.
      if (!path[0].is_index) keys.push_back(path[0].key);
    }
    if (!all) p->converter_.set_keys(KeySet(std::move(keys)));
  }
  // The labels of warnings: expressions in quotes, their quotes and backslashes escaped.
  for (const std::string& w : c.where)
    p->expr_labels_.push_back("--where " + QuoteForMessage(w, /*backslash_quotes=*/true));
  for (size_t i = 0; i < c.by.size(); ++i) {
    if (p->key_exprs_[i])
      p->expr_labels_.push_back(
          "--by " + QuoteForMessage(c.by[i] + "=" + c.by_expr[i], /*backslash_quotes=*/true));
  }
  for (const AggSpec& a : c.aggs) {
    if (!a.filter.empty())
      p->expr_labels_.push_back(fmt::format("--agg {}'s filter {}", QuoteForMessage(a.name),
                                            QuoteForMessage(a.filter, /*backslash_quotes=*/true)));
  }
  auto check = [&](const std::string& name, int slot) {
    for (int c : p->checked_slots_)
      if (c == slot) return;
    p->checked_names_.push_back(name);
    p->checked_slots_.push_back(slot);
    p->checked_every_line_.push_back(p->where_.empty() || filter_reads[slot]);
  };
  for (size_t i = 0; i < c.by.size(); ++i) {
    if (p->key_slots_[i] >= 0) check(c.by[i], p->key_slots_[i]);
  }
  for (size_t i = 0; i < c.aggs.size(); ++i) {
    if (!c.aggs[i].field.empty()) check(c.aggs[i].field, p->agg_slots_[i]);
  }
  for (const auto& [path, slot] : expr_fields) check(path, slot);
  p->seen_.assign(p->checked_slots_.size(), 0);
  p->all_seen_ = p->checked_slots_.empty();
  // The aggregates' inputs are read in place when their slots follow each other (no field read
  // twice, or also as the time or a key); otherwise they are gathered for each event.
  p->aggs_in_place_ = true;
  for (size_t i = 0; i < p->agg_slots_.size(); ++i) {
    p->aggs_in_place_ &= p->agg_slots_[i] == p->agg_slots_[0] + static_cast<int>(i);
    p->aggs_in_place_ &= p->agg_filters_[i] == nullptr;
  }

  p->agg_inputs_.assign(c.aggs.size(), ValueRef::Null());
  *out = std::move(p);
  return Status::Ok();
}

std::vector<uint64_t> EventParser::expr_literal_misses() const {
  std::vector<uint64_t> n;
  for (const Expr& w : where_) n.push_back(w.literal_kind_misses());
  for (const auto& e : key_exprs_) {
    if (e) n.push_back(e->literal_kind_misses());
  }
  for (const auto& f : agg_filters_) {
    if (f) n.push_back(f->literal_kind_misses());
  }
  return n;
}

std::vector<uint64_t> EventParser::expr_mismatches() const {
  std::vector<uint64_t> n;
  for (const Expr& w : where_) n.push_back(w.type_errors());
  for (const auto& e : key_exprs_) {
    if (e) n.push_back(e->type_errors());
  }
  for (const auto& f : agg_filters_) {
    if (f) n.push_back(f->type_errors());
  }
  return n;
}

// Inline: it is on every line's path (an out-of-line call cost job 1 1% of its instructions).
[[gnu::always_inline]] inline Status EventParser::ParseTime(const ValueRef& tv, Nanos* t) const {
  switch (tv.type) {
    case ValueType::kString:
      return time_format_.ParseString(tv.s, t);
    case ValueType::kNumber:
      return time_format_.ParseNumber(tv.s, t);
    case ValueType::kNull:
      return Status::DataError(
          BadKind::kNoTime, fmt::format("time field \"{}\" is missing or null", config_.time_field));
    default:
      return Status::DataError(
          BadKind::kBadTime,
          fmt::format("time field \"{}\" is a {}, not a timestamp string or epoch number",
                      config_.time_field,
                      tv.type == ValueType::kRaw ? "JSON object or array" : "boolean"));
  }
}

void EventParser::Parse(const char* data, size_t size, size_t capacity, Event* ev,
                        StructuralIndex* index, const CsvHeader* header, InputFormat format) {
  // A UTF-8 byte order mark (editors on Windows put one at the start of a file) is not part of
  // the JSON: skipped, as jq does.
  if (size >= 3 && std::memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
    data += 3;
    size -= 3;
    capacity -= 3;
  }
  bool blank = true;
  for (size_t i = 0; i < size && blank; ++i) blank = data[i] == ' ' || data[i] == '\t';
  if (blank) {
    ev->kind = Event::Kind::kBlank;
    return;
  }
  auto bad = [&](const Status& s) {
    reason_ = s.message();
    ev->kind = Event::Kind::kBad;
    ev->reason = reason_;
    ev->bad_kind = s.bad_kind();
  };
  if (format != InputFormat::kNdjson) {
    // The line's JSON object, in the converter's buffer: read as NDJSON from here on.
    std::string_view json;
    Status c = converter_.Convert(format, header, std::string_view(data, size), &json);
    if (!c.ok()) return bad(c);
    data = json.data();
    size = json.size();
    capacity = converter_.capacity();
    index = nullptr;
  }
  Status s = extractor_.Extract(data, size, capacity, &values_, index);
  if (!s.ok()) return bad(s);
  if (!where_.empty()) {
    // Only the filter's fields are read yet (EventParser::Create): a line it rejects is not
    // an event, whatever its other fields hold.
    for (Expr& w : where_) {
      if (!w.Test(values_.data())) {
        NoteSeen();
        ev->kind = Event::Kind::kFiltered;
        // Its time moves the watermark; one that cannot be read does not (and is no error).
        if (!ParseTime(values_[time_slot_], &ev->time).ok()) ev->time = kMinusInfinity;
        return;
      }
    }
    if (!(s = extractor_.ExtractRest(data, size, &values_)).ok()) return bad(s);
  }

  Nanos t;
  if (!(s = ParseTime(values_[time_slot_], &t)).ok()) return bad(s);

  NoteSeen();
  if (!aggs_in_place_) {
    for (size_t i = 0; i < agg_slots_.size(); ++i) {
      const std::unique_ptr<Expr>& f = agg_filters_[i];
      if (f == nullptr) {
        agg_inputs_[i] = values_[agg_slots_[i]];
      } else if (!f->Test(values_.data())) {
        agg_inputs_[i] = ValueRef::Null();  // not this aggregate's event: every one skips null
      } else {
        // A filtered count counts its events as count(f) counts non-null values.
        agg_inputs_[i] = config_.aggs[i].field.empty() ? ValueRef::Bool(true) : values_[agg_slots_[i]];
      }
    }
  }
  ev->kind = Event::Kind::kEvent;
  ev->time = t;
  const ValueRef& k0 = values_[key_slots_.empty() || key_slots_[0] < 0 ? 0 : key_slots_[0]];
  if (key_slots_.size() == 1 && !derived_keys_ && k0.type == ValueType::kString && MemoOn()) {
    // One string key, from a few distinct values (a service, a host): most lines repeat a
    // recent one, whose encoding and hash are kept in a small table instead of made again.
    const std::string_view raw = k0.s;
    // The set: a multiplicative hash of the size and first 8 bytes (the extractor's strings
    // have kPadding readable bytes after them). Two ways a set: a few keys share none.
    uint64_t head;
    std::memcpy(&head, raw.data(), sizeof head);
    if (raw.size() < 8) head &= (uint64_t{1} << (8 * raw.size())) - 1;
    const size_t set = ((head ^ raw.size()) * 0x9E3779B97F4A7C15ull) >> (64 - kKeyMemoSetBits);
    KeyMemo* const ways = key_memo_ + 2 * set;
    auto same = [&](const KeyMemo& m) {
      return m.valid && m.raw.size() == raw.size() &&
             (raw.size() <= 8 ? m.head == head : m.raw == raw);
    };
    size_t way = same(ways[0]) ? 0 : same(ways[1]) ? 1 : 2;
    if (way == 2) {  // a miss: the way used less recently takes the key
      way = 1 - key_memo_mru_[set];
      KeyMemo& m = ways[way];
      ++memo_misses_;
      m.raw.assign(raw);
      m.encoded.clear();
      EncodeValue(k0, &m.encoded);
      m.hash = KeyTable::Hash(m.encoded);
      tokens_ = tokens_ && (next_token_ & kTokenMask) != kTokenMask;
      m.token = tokens_ ? ++next_token_ : 0;
      m.head = head;
      m.valid = true;
    }
    key_memo_mru_[set] = static_cast<uint8_t>(way);
    const KeyMemo& m = ways[way];
    ev->key = m.encoded;
    ev->key_hash = m.hash;
    ev->key_token = m.token;
    ev->key_slot = static_cast<uint32_t>(&m - key_memo_);
  } else {
    key_.clear();
    for (size_t i = 0; i < key_slots_.size(); ++i) {
      if (key_slots_[i] >= 0) {
        EncodeValue(values_[key_slots_[i]], &key_);
      } else {
        // Encoded at once: a derived string lives in the expression until its next Eval.
        EncodeValue(key_exprs_[i]->Eval(values_.data()), &key_);
      }
    }
    ev->key = key_;
    ev->key_hash = KeyTable::Hash(key_);
    ev->key_token = 0;
  }
  ev->aggs = aggs_in_place_ ? values_.data() + agg_slots_[0] : agg_inputs_.data();
}

}  // namespace logtide
