#include "engine/checkpointer.h"

#include <fmt/format.h>

#include "util/quote.h"

namespace logtide {

Status Checkpointer::Restore(const Checkpoint& cp) {
  auto another_version = [&](std::string_view what) {
    return Status::Refused(fmt::format(
        "state file {} was written by another version of logtide ({}); it was not changed. "
        "Finish the job with the logtide that wrote it, or start a new --state file",
        store_->path(), what));
  };
  // Every section is checked before any is loaded: a refusal reads no input and says nothing
  // of the saved job.
  for (const Section& s : cp.sections) {
    bool known = false;
    for (const CheckpointComponent* c : components_) known = known || c->section() == s.name;
    if (!known) return another_version(fmt::format("it has a {} section", QuoteForMessage(s.name)));
  }
  for (const CheckpointComponent* c : components_) {
    const Section* s = cp.Find(c->section());
    if (s == nullptr) {
      return Status::Corruption(
          fmt::format("state file {} has no \"{}\" section: it is damaged; it was not changed",
                      store_->path(), c->section()));
    }
    if (s->version != c->version()) {
      return another_version(
          fmt::format("its \"{}\" section has format {}; this version reads "
                      "format {}",
                      c->section(), s->version, c->version()));
    }
  }
  for (CheckpointComponent* c : components_) {
    Status st = c->Load(cp.Find(c->section())->data, cp.windows);
    if (st.code() == Status::Code::kCorruption) {
      return Status::Corruption(
          fmt::format("state file {}: its \"{}\" section is damaged ({}); it was not changed",
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
