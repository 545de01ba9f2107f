#include "engine/parse_pool.h"

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "keys/key_table.h"

namespace logtide {

namespace {
// Blocks held by read-ahead, over all inputs: with many inputs, each reads ahead less.
constexpr size_t kAheadBudget = 64;

// The reason of a line longer than --max-line-length (LineReader::set_max_line_length).
std::string TooLongReason(uint64_t size, uint64_t offset, size_t limit) {
  return fmt::format("line of {} bytes (from byte {}) is longer than --max-line-length {}", size,
                     offset, limit);
}
}  // namespace

ParsePool::ParsePool(const EngineConfig& config, std::vector<LineReader*> readers,
                     size_t block_size)
    : config_(config),
      readers_(std::move(readers)),
      block_size_(block_size),
      inputs_(readers_.size()) {
  for (size_t i = 0; i < readers_.size(); ++i) inputs_[i].line = readers_[i]->lines_read();
  for (size_t i = 0; i < readers_.size(); ++i) formats_.push_back(config.FormatOf(i));
  direct_headers_.resize(readers_.size());
}

std::shared_ptr<const CsvHeader> ParsePool::HeaderOfLine(int i, const char* data, size_t size,
                                                         bool too_long) const {
  const char sep = formats_[i] == InputFormat::kTsv ? '\t' : ',';
  if (too_long) {
    return std::make_shared<const CsvHeader>(
        CsvHeader::Unreadable(fmt::format("the header (line 1) is longer than --max-line-length {}",
                                          config_.max_line_length),
                              sep));
  }
  return std::make_shared<const CsvHeader>(std::string_view(data, size), sep);
}

Status ParsePool::ReadHeader(int i, std::shared_ptr<const CsvHeader>* header) const {
  const LineReader& r = *readers_[i];
  std::string bytes;
  // Read in growing pieces until its '\n', the end of the file, or past the longest line.
  for (size_t n = 64 * 1024;; n *= 2) {
    const size_t want = std::min<size_t>(n, config_.max_line_length + 2);
    Status s = r.ReadAt(0, want, &bytes);
    if (!s.ok()) {
      return Status::IOError(fmt::format(
          "--input-format {}: {}: the header (line 1) cannot be read again to go on after it: {}",
          InputFormatName(formats_[i]), r.name(), s.message()));
    }
    const char* d = bytes.data();
    const char* nl = static_cast<const char*>(std::memchr(d, '\n', bytes.size()));
    if (nl != nullptr || bytes.size() < want || want > config_.max_line_length) {
      const LineEnd e = EndOfLine(d, nl, d + bytes.size());
      *header = HeaderOfLine(i, d, e.size, e.size > config_.max_line_length);
      return Status::Ok();
    }
  }
}

ParsePool::~ParsePool() { Stop(); }

void ParsePool::Stop() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    shutdown_ = true;
  }
  cancel_ = true;
  work_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  if (helper_ != nullptr) {
    MergeSeen(*helper_);
    helper_.reset();  // merged once
  }
}

void ParsePool::MergeSeen(const EventParser& p) {
  const std::vector<uint8_t>& s = p.fields_seen();
  if (seen_.size() < s.size()) seen_.resize(s.size(), 0);
  for (size_t i = 0; i < s.size(); ++i) seen_[i] |= s[i];
  const std::vector<uint64_t> m = p.expr_mismatches();
  if (mismatches_.size() < m.size()) mismatches_.resize(m.size(), 0);
  for (size_t i = 0; i < m.size(); ++i) mismatches_[i] += m[i];
  const std::vector<uint64_t> l = p.expr_literal_misses();
  if (literal_misses_.size() < l.size()) literal_misses_.resize(l.size(), 0);
  for (size_t i = 0; i < l.size(); ++i) literal_misses_[i] += l[i];
}

Status ParsePool::Start(int threads) {
  // Each worker makes its own parser (Work), so that its memory comes from that thread's malloc
  // arena: parsers of different threads never share a cache line. This one, made on the
  // engine's thread, is that thread's (Next), and checks that they can be made.
  Status s = EventParser::Create(config_, &helper_);
  if (!s.ok()) return s;
  checked_ = helper_->checked_fields();
  every_line_ = helper_->checked_every_line();
  expr_labels_ = helper_->expr_labels();
  if (threads == 0) {
    direct_ = true;
    for (size_t i = 0; i < readers_.size(); ++i)
      direct_indexes_.push_back(std::make_unique<StructuralIndex>());
    direct_reasons_.resize(readers_.size());
    return Status::Ok();
  }
  // Enough read-ahead to keep every worker, and the engine's thread, busy on the input the
  // engine reads.
  ahead_ = std::clamp<size_t>(kAheadBudget / std::max<size_t>(readers_.size(), 1), 1,
                              2 * (static_cast<size_t>(threads) + 1));
  // Signals go to the engine's thread, which checks for a stop; workers never see them.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  for (int i = 0; i < threads; ++i) threads_.emplace_back(&ParsePool::Work, this);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return Status::Ok();
}

int ParsePool::PickLocked() const {
  auto readable = [&](int i, size_t ahead) {
    const Input& in = inputs_[i];
    return !in.reading && !in.ended && in.queue.size() < ahead;
  };
  if (readable(current_, ahead_)) return current_;
  // Other inputs get their next block ready, so that switching to them does not wait, while
  // the blocks read ahead stay within the budget.
  if (queued_ >= kAheadBudget) return -1;
  for (int i = 0; i < static_cast<int>(inputs_.size()); ++i) {
    if (readable(i, 1)) return i;
  }
  return -1;
}

void ParsePool::Work() {
  std::unique_ptr<EventParser> owned;
  Status made = EventParser::Create(config_, &owned);  // Start made one with this config
  std::unique_lock<std::mutex> lk(mu_);
  if (!made.ok()) {  // not expected; but the engine must not wait for this worker
    failed_ = made;
    ready_cv_.notify_one();
    return;
  }
  StructuralIndex index;
  while (true) {
    int i = -1;
    work_cv_.wait(lk, [&] { return shutdown_ || (i = PickLocked()) >= 0; });
    if (shutdown_) {
      MergeSeen(*owned);
      return;
    }
    ReadAndParse(i, owned.get(), &index, &lk);
  }
}

void ParsePool::ReadAndParse(int i, EventParser* parser, StructuralIndex* index,
                             std::unique_lock<std::mutex>* lk) {
  Input& in = inputs_[i];
  in.reading = true;
  Chunk* c;
  if (free_.empty()) {
    chunks_.push_back(std::make_unique<Chunk>());
    c = chunks_.back().get();
  } else {
    c = free_.back();
    free_.pop_back();
  }
  c->ready = false;
  in.queue.push_back(c);
  ++queued_;
  lk->unlock();

  bool cancelled = false;
  c->status = readers_[i]->ReadBlock(block_size_, &c->bytes, &c->size, &c->offset, &c->long_line,
                                     cancel_, &cancelled);
  const bool last = !c->status.ok() || cancelled || c->size == 0;
  if (cancelled) c->size = 0;
  c->format = formats_[i];
  if (HasHeader(c->format) && c->status.ok() && c->size > 0) {  // the only reader of input i
    if (c->offset == 0) {
      const char* d = c->bytes.data();
      const LineEnd e =
          EndOfLine(d, static_cast<const char*>(std::memchr(d, '\n', c->size)), d + c->size);
      in.header =
          HeaderOfLine(i, d, e.size, c->long_line.size != 0 || e.size > config_.max_line_length);
    } else if (in.header == nullptr) {
      c->status = ReadHeader(i, &in.header);
    }
    c->header = in.header;
  }
  lk->lock();
  in.reading = false;
  in.ended = last;
  lk->unlock();
  work_cv_.notify_one();  // the input's next block may be read now
  // So may the engine's thread, if it waits: a compressed block takes as long to read
  // (decompress) as to parse, and reads of an input are one at a time, so waiting for this
  // block's parse left that thread idle while the next block could be decompressed.
  ready_cv_.notify_one();

  if (c->status.ok()) ParseChunk(parser, index, c, 0);
  lk->lock();
  c->ready = true;
  ready_cv_.notify_one();
}

void ParsePool::ParseChunk(EventParser* parser, StructuralIndex* index, Chunk* c, size_t from) {
  c->recs.clear();
  c->values.clear();
  c->strings.clear();
  c->arena.clear();
  if (c->long_line.size != 0) {  // one line, of which only the first bytes were kept
    AddTooLong(c, 0, c->long_line.size, c->long_line.consumed, c->long_line.terminated);
    c->parsed = c->size;
    return;
  }
  const char* d = c->bytes.data();
  const size_t naggs = parser->num_aggs();
  Event ev;
  // Records per byte of block: job 1's lines (about 200 bytes, three aggregates) make 0.9
  // bytes; blank lines 56 (a record per byte: 64 MiB of them took 632 MB with --threads 2);
  // lines with 1000 aggregates 200 (a 40-byte value each).
  const size_t bound = kRecordBytesPerByte * std::max(block_size_, c->size);
  index->SetRun(d + from, c->size - from);
  size_t pos = from;
  for (; pos < c->size;) {
    if (c->recs.size() * sizeof(Chunk::Rec) + c->values.size() * sizeof(ValueRef) +
            c->arena.size() >
        bound) [[unlikely]]
      break;  // the rest when Next reaches it
    const char* nl = static_cast<const char*>(std::memchr(d + pos, '\n', c->size - pos));
    const LineEnd e = EndOfLine(d + pos, nl, d + c->size);
    // A line longer than the limit, held whole (a block larger than the limit holds it).
    if (e.size > config_.max_line_length) [[unlikely]] {
      AddTooLong(c, pos, e.size, e.consumed, e.terminated);
      pos += e.consumed;
      continue;
    }
    Chunk::Rec r;
    r.begin = pos;
    r.size = e.size;
    r.end_bytes = static_cast<uint8_t>(e.consumed - e.size);
    r.terminated = e.terminated;
    if (HasHeader(c->format) && c->offset + pos == 0) {
      ev = Event();  // the header: not an event, not a bad line
    } else {
      parser->Parse(d + pos, r.size, c->bytes.size() - pos, &ev, index, c->header.get(), c->format);
    }
    r.kind = ev.kind;
    r.time = ev.time;
    r.key_hash = ev.key_hash;
    r.key_token = ev.key_token;
    static_assert(KeyTable::kCacheSlots <= 256, "Rec::key_slot is one byte");
    r.key_slot = static_cast<uint8_t>(ev.kind == Event::Kind::kBad
                                          ? static_cast<uint32_t>(ev.bad_kind)
                                          : ev.key_slot);
    std::string_view text = ev.kind == Event::Kind::kEvent ? ev.key
                            : ev.kind == Event::Kind::kBad ? ev.reason
                                                           : std::string_view();
    // Offsets are 32-bit: the key, reason and string copies of one block stay far below 4 GiB
    // unless the block itself (one line) is larger, which is refused with a clear error.
    if (c->arena.size() + text.size() > UINT32_MAX || c->values.size() + naggs > UINT32_MAX) {
      c->status = Status::IOError(
          "a line of more than 4 GiB cannot be parsed by worker threads; run with --threads 1");
      c->recs.clear();
      c->parsed = c->size;
      return;
    }
    r.text = static_cast<uint32_t>(c->arena.size());
    r.text_size = static_cast<uint32_t>(text.size());
    r.values = static_cast<uint32_t>(c->values.size());
    c->arena.append(text);
    if (ev.kind == Event::Kind::kEvent) {
      for (size_t a = 0; a < naggs; ++a) {
        const ValueRef& v = ev.aggs[a];
        if (!v.s.empty()) {  // the parser's strings are gone at the next line: keep a copy
          c->strings.emplace_back(static_cast<uint32_t>(c->values.size()),
                                  static_cast<uint32_t>(c->arena.size()));
          c->arena.append(v.s);
        }
        c->values.push_back(v);
      }
    }
    c->recs.push_back(r);
    pos += r.size + r.end_bytes;
  }
  c->parsed = pos;
  // The arena is complete: point the copied strings into it.
  for (const auto& [value, at] : c->strings) {
    ValueRef& v = c->values[value];
    v.s = std::string_view(c->arena.data() + at, v.s.size());
  }
}

void ParsePool::AddTooLong(Chunk* c, uint64_t begin, uint64_t full_size, uint64_t consumed,
                           bool terminated) {
  Chunk::Rec r{};
  r.begin = begin;
  r.size = full_size;
  r.end_bytes = static_cast<uint8_t>(consumed - full_size);
  r.terminated = terminated;
  r.kind = Event::Kind::kBad;
  r.key_slot = static_cast<uint8_t>(BadKind::kTooLong);
  const std::string reason = TooLongReason(full_size, c->offset + begin, config_.max_line_length);
  r.text = static_cast<uint32_t>(c->arena.size());
  r.text_size = static_cast<uint32_t>(reason.size());
  r.values = static_cast<uint32_t>(c->values.size());
  c->arena.append(reason);
  c->recs.push_back(r);
}

bool ParsePool::Ready(int input) {
  if (direct_) return readers_[input]->Ready();
  std::lock_guard<std::mutex> lk(mu_);
  const Input& in = inputs_[input];
  return in.finished ||
         (in.held != nullptr &&
          (in.cursor < in.held->recs.size() || in.held->parsed < in.held->size)) ||
         (!in.queue.empty() && in.queue.front()->ready);
}

void ParsePool::set_return_while_waiting(bool on) {
  return_while_waiting_ = on;
  for (LineReader* r : readers_) r->set_return_while_waiting(on);
}

void ParsePool::StopWaiting(int input) {
  readers_[input]->StopWaiting();
  std::lock_guard<std::mutex> lk(mu_);
  inputs_[input].waited = false;
}

Status ParsePool::NextDirect(int input, Line* line, Event* event, bool* have) {
  LineReader& r = *readers_[input];
  Status s = r.Next(line, have);
  interrupted_ = r.interrupted();
  if (!s.ok() || !*have) {
    pending_ = r.pending();
    return s;
  }
  StructuralIndex& index = *direct_indexes_[input];
  if (line->run_size != 0) {
    index.SetRun(line->data, line->run_size);
    ++blocks_;
  }
  const CsvHeader* header = nullptr;
  if (HasHeader(formats_[input])) {
    std::shared_ptr<const CsvHeader>& h = direct_headers_[input];
    if (line->offset == 0) {  // the header: not an event, not a bad line (unless too long)
      h = HeaderOfLine(input, line->data, line->size, line->too_long);
      if (!line->too_long) {
        *event = Event();
        return s;
      }
    }
    if (h == nullptr && !(s = ReadHeader(input, &h)).ok()) return s;
    header = h.get();
  }
  if (line->too_long) [[unlikely]] {
    std::string& reason = direct_reasons_[input];
    reason = TooLongReason(line->full_size, line->offset, config_.max_line_length);
    *event = Event();
    event->kind = Event::Kind::kBad;
    event->bad_kind = BadKind::kTooLong;
    event->reason = reason;
    return s;
  }
  helper_->Parse(line->data, line->size, line->capacity, event, &index, header, formats_[input]);
  return s;
}

Status ParsePool::NextPooled(int input, Line* line, Event* event, bool* have) {
  Input& in = inputs_[input];
  *have = false;
  pending_ = false;
  while (!in.finished) {
    Chunk* c = in.held;
    if (c != nullptr && in.cursor < c->recs.size()) {
      const Chunk::Rec& r = c->recs[in.cursor++];
      line->data = c->bytes.data() + r.begin;
      line->size = r.size;
      line->full_size = r.size;
      line->too_long =
          r.kind == Event::Kind::kBad && r.key_slot == static_cast<uint8_t>(BadKind::kTooLong);
      line->dropped = false;
      if (line->too_long) [[unlikely]] {  // only its first bytes are the line's to show
        line->size = LineReader::LongLinePrefix(config_.max_line_length);
        line->dropped = c->long_line.size != 0;
        line->tail = c->long_line.tail;
        line->hash_after = c->long_line.hash_after.get();
      }
      line->capacity = c->bytes.size() - r.begin;
      line->offset = c->offset + r.begin;
      line->end_offset = line->offset + r.size + r.end_bytes;
      line->number = ++in.line;
      line->terminated = r.terminated;
      line->run_size = 0;
      event->kind = r.kind;
      event->time = r.time;
      event->key_hash = r.key_hash;
      event->key_token = r.key_token;
      event->key_slot = r.key_slot;
      std::string_view text(c->arena.data() + r.text, r.text_size);
      event->key = r.kind == Event::Kind::kEvent ? text : std::string_view();
      event->reason = r.kind == Event::Kind::kBad ? text : std::string_view();
      event->bad_kind = static_cast<BadKind>(r.kind == Event::Kind::kBad ? r.key_slot : 0);
      event->aggs = r.kind == Event::Kind::kEvent ? c->values.data() + r.values : nullptr;
      *have = true;
      return Status::Ok();
    }
    if (c != nullptr && c->parsed < c->size) {
      // The block's next part (ParseChunk), parsed here, where it is needed now.
      ParseChunk(helper_.get(), &helper_index_, c, c->parsed);
      in.cursor = 0;
      if (!c->status.ok()) {
        Status s = c->status;
        std::lock_guard<std::mutex> lk(mu_);
        free_.push_back(c);
        in.held = nullptr;
        in.finished = true;
        return s;
      }
      continue;
    }
    std::unique_lock<std::mutex> lk(mu_);
    if (c != nullptr) {
      free_.push_back(c);
      in.held = nullptr;
    }
    if (current_ != input) {
      current_ = input;
      work_cv_.notify_all();
    }
    auto ready = [&] { return !in.queue.empty() && in.queue.front()->ready; };
    while (!ready()) {
      if (!failed_.ok()) return failed_;
      if (stop_ != nullptr && *stop_ != 0) {
        interrupted_ = true;
        return Status::Ok();
      }
      // Rather than wait, parse a block ahead like a worker: the cores stay busy with one
      // worker fewer (a thread more than cores costs each of them cache and switches). Only
      // files: reading a pipe could block this thread past a stop signal.
      const int pick = PickLocked();
      if (pick >= 0 && readers_[pick]->is_regular()) {
        ReadAndParse(pick, helper_.get(), &helper_index_, &lk);
        continue;
      }
      if (!return_while_waiting_) {
        ready_cv_.wait_for(lk, std::chrono::milliseconds(100));
        continue;
      }
      if (in.waited) {  // returned after the short wait: the rest of the 100 ms
        in.waited = false;
        ready_cv_.wait_for(lk, std::chrono::milliseconds(100) - kFirstWait);
        continue;
      }
      // A short wait first: only input that has stopped coming makes the engine flush.
      if (ready_cv_.wait_for(lk, kFirstWait, ready)) break;
      in.waited = true;
      pending_ = true;
      return Status::Ok();
    }
    in.waited = false;
    c = in.queue.front();
    in.queue.pop_front();
    --queued_;
    // Room for one more block: one worker to read it. Waking them all made the ones that found
    // nothing to do take the applying thread's core for a moment, which counts when that thread
    // is the bottleneck (--by user).
    work_cv_.notify_one();
    if (!c->status.ok() || c->size == 0) {
      Status s = c->status;
      free_.push_back(c);
      in.finished = true;
      return s;
    }
    in.held = c;
    in.cursor = 0;
    ++blocks_;
  }
  return Status::Ok();
}

}  // namespace logtide
