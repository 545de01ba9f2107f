#include "engine/window_operator.h"

#include <algorithm>

#include "engine/pane_operator.h"
#include "engine/session_operator.h"

namespace logtide {

std::unique_ptr<WindowOperator> WindowOperator::Create(const WindowSpec& spec, Nanos lateness, EmitMode mode, Deps deps) {
  if (spec.is_session()) return std::make_unique<SessionOperator>(spec, lateness, mode, deps);
  return std::make_unique<PaneOperator>(spec, lateness, mode, deps);
}

void WindowOperator::EmitSorted(std::vector<WindowResult>* results) {
  const KeyTable* keys = deps_.keys;
  std::sort(results->begin(), results->end(), [keys](const WindowResult& a, const WindowResult& b) {
    if (a.end != b.end) return a.end < b.end;
    if (a.start != b.start) return a.start < b.start;
    return keys->Compare(a.key, b.key) < 0;
  });
  for (const WindowResult& r : *results) deps_.emitter->Emit(r);
  results->clear();
}

}  // namespace logtide
