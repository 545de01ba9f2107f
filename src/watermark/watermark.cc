#include "watermark/watermark.h"

#include "watermark/input_times.h"

namespace logtide {

bool DecodeWatermarkTimes(std::string_view data, InputTimes* out) {
  ByteReader r(data);
  r.I64();
  return DecodeInputTimes(&r, out) && r.at_end();
}

Nanos WatermarkTracker::RestoredMax(uint64_t id) const {
  Nanos t = FindInputTime(restored_, id, kMinusInfinity);
  int64_t quiet = 0;
  if (t == kMinusInfinity && ids_ != nullptr) ids_->LegacyTimes(id, &t, &quiet);
  return t;
}

Status WatermarkTracker::Save(std::string* data) {
  ByteWriter w(data);
  w.I64(current_);
  if (ids_ == nullptr) {
    w.U32(0);
    return Status::Ok();
  }
  // A followed file rotated away in this run is saved with the largest event time of the
  // input that goes on at its path: it is read to its end and rotated, so it holds no
  // watermark back, and the time is never below its own largest.
  EncodeInputTimes(
      *ids_,
      [&](const InputIds::Saved& s) { return s.input >= 0 ? max_[s.input] : RestoredMax(s.id); },
      &w);
  return Status::Ok();
}

Status WatermarkTracker::Load(std::string_view data, uint32_t version) {
  ByteReader r(data);
  current_ = r.I64();
  restored_.clear();
  if (version >= 2 && !DecodeInputTimes(&r, &restored_))
    return Status::Corruption("it does not decode");
  if (!r.ok() || !r.at_end()) return Status::Corruption("it does not decode");
  if (ids_ == nullptr) return Status::Ok();
  for (int i = 0; i < inputs(); ++i) {
    const uint64_t id = ids_->id(i);
    if (id != 0) Observe(i, RestoredMax(id));
  }
  return Status::Ok();
}

void WatermarkTracker::DescribeSection(StateCodec* c) {
  c->I64("watermark");
  const uint64_t n = c->List("inputs");
  for (uint64_t i = 0; i < n && c->ok(); ++i) {
    c->Object("");
    c->U64("id");
    c->I64("max_time");
    c->End();
  }
  c->End();
}

}  // namespace logtide
