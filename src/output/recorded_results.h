// Aggregate results recorded as bytes, to be written later and elsewhere (the output thread
// copies a firing's results out of the window state with them). No encoding of its own: a
// result is what json/value.h's EncodeValue makes of it (null and values), except the two
// ValueSink calls that have no ValueRef, which are a tag byte outside ValueType's range
// followed by util/bytes.h's fixed-width little-endian form:
//   Null()      EncodeValue(null): the byte 0x00
//   Value(v)    EncodeValue(v) (a number keeps its value, not its source text; a null
//               replays as Null(), which every RecordSink writes alike)
//   Int(x)      0x10, then ByteWriter::I128(x): 16 bytes
//   Double(x)   0x11, then ByteWriter::F64(x): 8 bytes (any double: NaN, infinities, -0)
// Held in memory only, never saved: no version.
#pragma once

#include <string>
#include <string_view>

#include "agg/accumulators.h"

namespace logtide {

// Appends each result it receives to *bytes.
class ResultRecorder final : public ValueSink {
 public:
  explicit ResultRecorder(std::string* bytes = nullptr) : bytes_(bytes) {}
  void set_bytes(std::string* bytes) { bytes_ = bytes; }

  void Null() override;
  void Int(__int128 v) override;
  void Double(double v) override;
  void Value(const ValueRef& v) override;

 private:
  std::string* bytes_;
};

// Gives `sink` the result recorded at the front of *in and advances *in past it. A string
// borrows from *in, or from *scratch when it holds 0x00 (then valid until scratch changes).
// REQUIRES: *in starts with a result a ResultRecorder appended.
void ReplayResult(std::string_view* in, ValueSink* sink, std::string* scratch);

}  // namespace logtide
