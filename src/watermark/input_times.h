// A time per saved input, by the inputs' ids (state/checkpoint.h InputIds): the encoding the
// watermark's and idleness' sections share. u32 inputs, per input: u64 id, i64 time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "state/checkpoint.h"
#include "util/bytes.h"

namespace logtide {

using InputTimes = std::vector<std::pair<uint64_t, int64_t>>;

// Appends the time of every input `ids` saves, `time_of(saved)` each.
template <typename TimeOf>
void EncodeInputTimes(const InputIds& ids, TimeOf time_of, ByteWriter* w) {
  std::vector<InputIds::Saved> saved;
  ids.SavedIds(&saved);
  w->U32(static_cast<uint32_t>(saved.size()));
  for (const InputIds::Saved& s : saved) {
    w->U64(s.id);
    w->I64(time_of(s));
  }
}

// Reads what EncodeInputTimes wrote. False when it is damaged (an id 0 or twice).
inline bool DecodeInputTimes(ByteReader* r, InputTimes* out) {
  out->clear();
  const uint32_t n = r->U32();
  for (uint32_t i = 0; i < n && r->ok(); ++i) {
    const uint64_t id = r->U64();
    const int64_t t = r->I64();
    if (id == 0) return false;
    for (const auto& [seen, _] : *out) {
      if (seen == id) return false;
    }
    out->emplace_back(id, t);
  }
  return r->ok();
}

// The time saved for `id`, or `none`.
inline int64_t FindInputTime(const InputTimes& times, uint64_t id, int64_t none) {
  for (const auto& [k, t] : times) {
    if (k == id) return t;
  }
  return none;
}

}  // namespace logtide
