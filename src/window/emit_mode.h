// When a window's record is written (--emit): once, when the watermark passes its end
// (kFinal), or again with a revision for each late event it accepts (kUpdate). --early adds
// provisional records while a window is open, in either mode.
#pragma once

#include <cstdint>

namespace logtide {

enum class EmitMode { kFinal, kUpdate };

// How final a record is (the "phase" field, written whenever revisions are: update mode or
// --early): written while the window was open (kEarly), when the watermark passed its end
// (kOnTime; in final mode, its end plus the lateness), or after that (kLate: for a late event,
// or to close the window).
enum class RecordPhase : uint8_t { kEarly = 0, kOnTime = 1, kLate = 2 };

inline const char* RecordPhaseName(RecordPhase p) {
  switch (p) {
    case RecordPhase::kEarly:
      return "early";
    case RecordPhase::kOnTime:
      return "on_time";
    case RecordPhase::kLate:
      return "late";
  }
  return "late";
}

}  // namespace logtide
