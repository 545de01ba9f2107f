#include "engine/checkpointer.h"

#include <fmt/format.h>

namespace logtide {

Status Checkpointer::Restore(const Checkpoint& cp) {
  for (CheckpointComponent* c : components_) {
    const Section* s = cp.Find(c->section());
    if (s == nullptr) {
      return Status::Corruption(
          fmt::format("state file {} has no \"{}\" section: it is damaged; it was not changed",
                      store_->path(), c->section()));
    }
    if (s->version != c->version()) {
      return Status::Refused(fmt::format(
          "state file {} was written by another version of logtide (its \"{}\" section has "
          "format {}; this version reads format {}); it was not changed. Finish the job with the "
          "logtide that wrote it, or start a new --state file",
          store_->path(), c->section(), s->version, c->version()));
    }
    Status st = c->Load(s->data, cp.windows);
    if (st.code() == Status::Code::kCorruption) {
      return Status::Corruption(
          fmt::format("state file {}: the saved {} are damaged ({}); it was not changed",
                      store_->path(), c->section(), st.message()));
    }
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

Status Checkpointer::Commit(Checkpoint* cp) {
  cp->sections.clear();
  cp->window_ops.clear();
  for (CheckpointComponent* c : components_) {
    Section s{std::string(c->section()), c->version(), {}};
    Status st = c->Save(&s.data, &cp->window_ops, cp->compact);
    if (!st.ok()) return st;
    cp->sections.push_back(std::move(s));
  }
  return store_->Commit(*cp);
}

}  // namespace logtide
