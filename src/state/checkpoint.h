// What a checkpoint is made of: every stateful part of a job (the window operator, the
// watermark, the inputs and their identity, the counters, the outputs) is a
// CheckpointComponent that saves itself as one named, versioned section. The engine's
// Checkpointer loops over them; the StateStore keeps the sections, plus the window log that
// only the window operator writes, in one transaction (Arroyo's snapshot/restore hooks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "state/window_rows.h"
#include "util/status.h"

namespace logtide {

// A change to the window log since the last checkpoint.
struct StateOp {
  enum Kind : uint8_t { kPut, kErase, kErasePrefix };
  Kind kind;
  std::string key;
  std::string value;  // kPut only
};


// One component's saved state.
struct Section {
  std::string name;
  uint32_t version = 0;
  std::string data;
};

// What every saved section says of its format.
class SectionFormat {
 public:
  virtual ~SectionFormat() = default;

  // The section's name, unique within a job ("inputs", "windows", ...).
  virtual std::string_view section() const = 0;
  // The version of the section's format that Save writes. A format change takes a new
  // version: a state saved in a version the component does not read is refused, never misread.
  virtual uint32_t version() const = 0;
  // Whether Load reads a section saved in `version`: the one Save writes, and the older ones
  // a component migrates (their missing fields take the values a new job starts with).
  virtual bool Reads(uint32_t version) const { return version == this->version(); }
  // Whether a state saved before this section existed is read: Load then gets version 0 and
  // no bytes, and migrates what older sections held.
  virtual bool ReadsAbsent() const { return false; }
};

// How the job's inputs are known across runs, for the components that keep something per
// input (the watermark's largest event times, idleness): the inputs' component
// (input/input_set.h) matches this run's inputs to the saved ones, which may come in another
// order, under other names, or not at all; each saved input has an id that stays with it.
class InputIds {
 public:
  // An input the next checkpoint saves: its id and this run's input it stands for, or -1 (one
  // this run does not read, kept from an earlier run), or, for a followed file rotated away in
  // this run, the input that goes on at its path.
  struct Saved {
    uint64_t id;
    int input;
  };
  virtual ~InputIds() = default;
  // After the inputs' Load: the id of this run's input i; 0 when it is not saved (a copy of
  // another input's content).
  virtual uint64_t id(int input) const = 0;
  // The inputs the next checkpoint saves, in the order it saves them.
  virtual void SavedIds(std::vector<Saved>* out) const = 0;
  // Migration: the largest event time and the quiet-since time the inputs' section saved with
  // input `id` up to its version 3 (INT64_MIN when not known). False when it held none.
  virtual bool LegacyTimes(uint64_t id, int64_t* max_time, int64_t* quiet_since) const = 0;
};

// A stateful part of the job whose state is its section alone.
class CheckpointComponent : public SectionFormat {
 public:
  // Writes the component's state to *data.
  virtual Status Save(std::string* data) = 0;
  // Restores the component from a section saved in `version`. Components are restored in
  // the order they were registered. Errors: Corruption when the bytes are damaged; Refused
  // when the saved state does not fit this run (an input replaced, say).
  // REQUIRES: Reads(version).
  virtual Status Load(std::string_view data, uint32_t version) = 0;
};

// The window operator: its section holds what is not per window, and its (window, key) states
// are rows of the window log, of which a checkpoint saves only the changes.
class WindowLogComponent : public SectionFormat {
 public:
  // Writes the section to *data and appends the row changes since the last Save to *log (with
  // `all`, every live row, for a log rewritten whole).
  virtual Status Save(std::string* data, std::vector<StateOp>* log, bool all) = 0;
  // Restores from a section saved in `version` and the window log's live rows.
  // Errors and REQUIRES: as CheckpointComponent::Load.
  virtual Status Load(std::string_view data, uint32_t version, RowSource* rows) = 0;

  // What a checkpoint tells of the windows besides saving them (its compaction rule, the facts
  // `inspect` shows, the check of a resumed state):
  // the row changes the next Save appends;
  virtual size_t recorded_changes() const = 0;
  // the open (window or pane, key) states;
  virtual size_t open_entries() const = 0;
  // the timers still to go off;
  virtual size_t pending_timers() const = 0;
  // the watermark the windows are at (INT64_MIN before any).
  virtual int64_t watermark() const = 0;
};

}  // namespace logtide
