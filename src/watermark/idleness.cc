#include "watermark/idleness.h"

#include "watermark/input_times.h"

namespace logtide {

Nanos Idleness::RestoredSince(uint64_t id) const {
  if (!legacy_) return FindInputTime(restored_, id, INT64_MIN);
  int64_t max_time = 0, since = INT64_MIN;
  if (ids_ == nullptr || !ids_->LegacyTimes(id, &max_time, &since)) return INT64_MIN;
  return since;
}

Status Idleness::Save(std::string* data) {
  ByteWriter w(data);
  if (ids_ == nullptr) {
    w.U32(0);
    return Status::Ok();
  }
  EncodeInputTimes(
      *ids_,
      [&](const InputIds::Saved& s) {
        return s.input >= 0 ? since_[s.input] : RestoredSince(s.id);
      },
      &w);
  return Status::Ok();
}

Status Idleness::Load(std::string_view data, uint32_t version) {
  restored_.clear();
  legacy_ = version == 0;  // a state from before the section
  if (!legacy_) {
    ByteReader r(data);
    if (!DecodeInputTimes(&r, &restored_) || !r.at_end())
      return Status::Corruption("it does not decode");
  }
  if (ids_ == nullptr) return Status::Ok();
  for (size_t i = 0; i < since_.size(); ++i) {
    const uint64_t id = ids_->id(static_cast<int>(i));
    const Nanos since = id == 0 ? INT64_MIN : RestoredSince(id);
    if (since != INT64_MIN) since_[i] = std::min(since, start_);
  }
  return Status::Ok();
}

void Idleness::DescribeSection(StateCodec* c) {
  const uint64_t n = c->List("inputs");
  for (uint64_t i = 0; i < n && c->ok(); ++i) {
    c->Object("");
    c->U64("id");
    c->I64("quiet_since");
    c->End();
  }
  c->End();
}

}  // namespace logtide
