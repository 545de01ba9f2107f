// The engine's one input path: every line of every input, parsed into an Event, in each
// input's order. With worker threads (--threads), workers read blocks of whole lines from the
// inputs and parse every line; the engine takes the lines back one at a time, and while the
// next block is not parsed yet its thread reads and parses one of a file like a worker. With
// no workers (--threads 1, or input too small to pay for threads) the engine's thread reads
// and parses each line as it takes it, through the readers' own buffers. Parsing is pure, so
// the results are the same bytes either way.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/event_parser.h"
#include "input/line_reader.h"
#include "json/structural_index.h"
#include "util/status.h"

namespace logtide {

class ParsePool {
 public:
  // Reads `readers` (not owned; they outlive the pool) in blocks of about `block_size` bytes.
  // Once Start is called, nothing else reads lines from them or looks at how far they got
  // (bytes_consumed) until the pool is destroyed; what they know from opening (name, size,
  // device) and ReadAt, which reads at an offset, stay safe to use.
  ParsePool(const EngineConfig& config, std::vector<LineReader*> readers, size_t block_size);
  ~ParsePool();  // Stop()
  // Cancels and joins the workers (what they read ahead is dropped). Then fields_seen() is
  // final.
  void Stop();
  // EventParser::fields_seen over every parser of the pool.
  const std::vector<uint8_t>& fields_seen() const { return seen_; }
  // EventParser::expr_labels, and expr_mismatches summed over every parser of the pool (after
  // Stop).
  const std::vector<std::string>& expr_labels() const { return expr_labels_; }
  const std::vector<uint64_t>& expr_mismatches() const { return mismatches_; }
  const std::vector<uint64_t>& expr_literal_misses() const { return literal_misses_; }
  const std::vector<std::string>& checked_fields() const { return checked_; }
  const std::vector<uint8_t>& checked_every_line() const { return every_line_; }
  ParsePool(const ParsePool&) = delete;
  ParsePool& operator=(const ParsePool&) = delete;

  // Starts `threads` workers (the engine's thread, in Next, is one more); 0 reads and parses
  // on the engine's thread alone. Errors: those of EventParser::Create.
  Status Start(int threads);

  // A read waiting for workers returns with *have false and interrupted() set once *flag is
  // non-zero (a stop signal).
  void set_stop_flag(const volatile int* flag) { stop_ = flag; }
  bool interrupted() const { return interrupted_; }
  // Makes Next return while it waits for input that has not arrived, with no line and pending()
  // set: first after kFirstWait, then about every 100 ms, so that the engine's thread can do
  // its periodic work between two lines (its tick: flush what was written, checkpoint on time,
  // show progress, see to idle inputs). Never while input keeps coming. The next call for that
  // input goes on where it stopped; StopWaiting(input) first when the caller turns to another
  // input instead, so the next wait on this one starts with the short one again.
  static constexpr std::chrono::milliseconds kFirstWait{10};
  void set_return_while_waiting(bool on);
  bool pending() const { return pending_; }
  void StopWaiting(int input);
  // Blocks of input Next has started on so far: a cheap sign that a read happened.
  uint64_t blocks() const { return blocks_; }
  // Whether Next(input) would return without waiting for input to arrive.
  bool Ready(int input);

  // Sets *line and *event to the next line of `input`, in order, or *have to false at its end.
  // Both stay valid until the next call for the same input. Read errors come back in order, after
  // the lines before them.
  Status Next(int input, Line* line, Event* event, bool* have) {
    return direct_ ? NextDirect(input, line, event, have) : NextPooled(input, line, event, have);
  }

 private:
  // A block of lines and what they parsed to. Aligned to cache lines: the engine reads one
  // chunk while workers write others.
  struct alignas(64) Chunk {
    // Kept small: the engine's thread reads one per line from another core's cache.
    struct Rec {
      uint64_t begin, size;  // within bytes: line start, length without "\r\n"
      Nanos time;
      uint64_t key_hash;
      uint64_t key_token;
      uint32_t text, text_size;  // in arena: the key (events) or the reason (bad lines)
      uint32_t values;           // first of num_aggs inputs in values (events)
      Event::Kind kind;
      uint8_t key_slot;  // events: Event::key_slot; bad lines: Event::bad_kind
      uint8_t end_bytes;  // after the line, up to the next: '\n', "\r\n", a last '\r', or none
      bool terminated;    // ended by '\n'
    };
    std::vector<char> bytes;
    size_t size = 0;  // 0: the end of the input
    uint64_t offset = 0;
    LongLine long_line;  // size != 0: bytes holds the first bytes of this line alone
    size_t parsed = 0;   // bytes whose lines are in recs, or were (see ParseChunk)
    Status status;
    bool ready = false;
    std::vector<Rec> recs;
    std::vector<ValueRef> values;
    std::vector<std::pair<uint32_t, uint32_t>> strings;  // (value, its text's place in arena)
    std::string arena;
    // --input-format csv, tsv: the header of the file the block is of (set as it is read).
    std::shared_ptr<const CsvHeader> header;
    InputFormat format = InputFormat::kNdjson;  // of its input's lines
  };
  struct Input {
    std::deque<Chunk*> queue;  // read or being read, not yet taken by Next, in input order
    Chunk* held = nullptr;     // the chunk Next is taking lines from
    size_t cursor = 0;         // its next record
    bool reading = false;      // a worker is reading it (reads of one input are sequential)
    bool ended = false;        // its last block was read (end, error or cancel)
    bool finished = false;     // Next returned its end
    uint64_t line = 0;         // number of the last line Next returned
    bool waited = false;       // Next returned while waiting: the next wait is the long one
    // --input-format csv, tsv: the header of the file read now (by the thread reading it).
    std::shared_ptr<const CsvHeader> header;
  };

  // Next without workers: the reader's next line, parsed with the engine thread's parser.
  Status NextDirect(int input, Line* line, Event* event, bool* have);
  // Next with workers: the next line of the chunks they parsed.
  Status NextPooled(int input, Line* line, Event* event, bool* have);
  void Work();
  int PickLocked() const;  // an input a worker may read now, or -1
  // Reads the next block of input i and parses it, with mu_ held by *lk on entry and exit.
  void ReadAndParse(int i, EventParser* parser, StructuralIndex* index,
                    std::unique_lock<std::mutex>* lk);
  // Parses the lines of c from byte `from` into its records (replacing those it held), up to
  // about kRecordBytesPerByte bytes of records per byte of block (sets c->parsed to where it
  // stopped): a block of many short lines, or of lines with many aggregates, is parsed a part at
  // a time, each part when Next reaches it, so that a block's records stay within a bound of
  // its size.
  // REQUIRES: `from` starts a line of c.
  void ParseChunk(EventParser* parser, StructuralIndex* index, Chunk* c, size_t from);
  static constexpr size_t kRecordBytesPerByte = 2;
  // Appends to c a bad line for a line of `full_size` bytes at `begin` that is longer than
  // --max-line-length, unparsed; `consumed`: its bytes up to the next line.
  void AddTooLong(Chunk* c, uint64_t begin, uint64_t full_size, uint64_t consumed, bool terminated);
  // --input-format csv, tsv. A file's header is its first line (offset 0), which is neither an
  // event nor a bad line: read from that line when it is read, or, when reading starts past it
  // (a resumed run), from the file's start again (ReadHeader). Reads of one input are one at a
  // time, so the input's header is the reading thread's to set; each block keeps its own (a
  // followed file's rotation starts a new file with a new header).
  std::vector<InputFormat> formats_;  // each input's (EngineConfig::FormatOf)
  std::shared_ptr<const CsvHeader> HeaderOfLine(int i, const char* data, size_t size,
                                                bool too_long) const;
  // Reads the first line of input i's file again. Errors: IOError when it cannot be read (a
  // resumed standard input).
  Status ReadHeader(int i, std::shared_ptr<const CsvHeader>* header) const;
  std::vector<std::shared_ptr<const CsvHeader>> direct_headers_;

  const EngineConfig& config_;
  std::vector<LineReader*> readers_;
  size_t block_size_;
  size_t ahead_ = 1;  // blocks read ahead of the engine for the input it reads now
  std::vector<std::thread> threads_;
  // The engine's thread parses blocks with these when it would otherwise wait (Next).
  std::unique_ptr<EventParser> helper_;
  StructuralIndex helper_index_;
  // Without workers: per input, the index of the run of lines its reader holds now.
  bool direct_ = false;
  std::vector<std::unique_ptr<StructuralIndex>> direct_indexes_;
  std::vector<std::string> direct_reasons_;  // per input: the reason of its last too long line

  std::mutex mu_;
  std::condition_variable work_cv_;   // workers: an input became readable, or shutdown
  std::condition_variable ready_cv_;  // the engine: a chunk is parsed
  std::vector<Input> inputs_;
  std::vector<std::unique_ptr<Chunk>> chunks_;
  std::vector<Chunk*> free_;
  int current_ = 0;    // the input the engine reads now
  size_t queued_ = 0;  // blocks in all queues
  bool shutdown_ = false;
  Status failed_;  // a worker could not start
  std::atomic<bool> cancel_{false};

  const volatile int* stop_ = nullptr;
  bool return_while_waiting_ = false;
  bool interrupted_ = false;
  bool pending_ = false;
  uint64_t blocks_ = 0;
  std::vector<uint8_t> seen_;  // EventParser::fields_seen, merged (under mu_ until Stop)
  std::vector<std::string> checked_;  // EventParser::checked_fields
  std::vector<uint8_t> every_line_;   // EventParser::checked_every_line
  std::vector<std::string> expr_labels_;
  std::vector<uint64_t> mismatches_;  // merged as seen_ is
  std::vector<uint64_t> literal_misses_;
  void MergeSeen(const EventParser& p);
};

}  // namespace logtide
