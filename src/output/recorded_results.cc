#include "output/recorded_results.h"

#include "util/bytes.h"

namespace logtide {

namespace {

// Past every ValueType byte (0-5), so a tag never reads as the start of an EncodeValue.
constexpr uint8_t kInt128Tag = 0x10;
constexpr uint8_t kDoubleTag = 0x11;

}  // namespace

void ResultRecorder::Null() { EncodeValue(ValueRef::Null(), bytes_); }

void ResultRecorder::Int(__int128 v) {
  ByteWriter w(bytes_);
  w.U8(kInt128Tag);
  w.I128(v);
}

void ResultRecorder::Double(double v) {
  ByteWriter w(bytes_);
  w.U8(kDoubleTag);
  w.F64(v);
}

void ResultRecorder::Value(const ValueRef& v) { EncodeValue(v, bytes_); }

void ReplayResult(std::string_view* in, ValueSink* sink, std::string* scratch) {
  const auto tag = static_cast<uint8_t>((*in)[0]);
  if (tag == kInt128Tag) {
    ByteReader r(in->substr(1, 16));
    sink->Int(r.I128());
    in->remove_prefix(17);
  } else if (tag == kDoubleTag) {
    ByteReader r(in->substr(1, 8));
    sink->Double(r.F64());
    in->remove_prefix(9);
  } else if (tag == static_cast<uint8_t>(ValueType::kNull)) {
    sink->Null();
    in->remove_prefix(1);
  } else {
    sink->Value(DecodeValue(in, scratch));
  }
}

}  // namespace logtide
