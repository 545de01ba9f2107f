// The checkpoint loop: every stateful part of the job registers as a CheckpointComponent, and
// a checkpoint saves each as a section and commits them all, with the window log's changes,
// in one StateStore transaction; a resumed run restores them in the order they registered.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "state/checkpoint.h"
#include "state/state_store.h"
#include "util/status.h"

namespace logtide {

class Checkpointer {
 public:
  explicit Checkpointer(StateStore* store) : store_(store) {}

  // Adds a component; components are saved and restored in the order they are added.
  // REQUIRES: its section name is not taken; it outlives the Checkpointer.
  void Add(CheckpointComponent* c) { components_.push_back(c); }

  // Restores every component from `cp` (StateStore::Load), after checking that every
  // component has its section in its format and no section is unknown. Errors: Refused for a
  // section in another format or one no component knows (another logtide wrote it) before
  // anything is loaded, or for a state that does not fit this run; Corruption for a missing
  // or damaged section. Nothing is written either way.
  Status Restore(const Checkpoint& cp);

  // Saves every component into *cp (sections and window log changes; with cp->compact, the
  // whole window state) and commits it. The caller sets cp's other fields.
  Status Commit(Checkpoint* cp);

 private:
  StateStore* store_;
  std::vector<CheckpointComponent*> components_;
};

}  // namespace logtide
