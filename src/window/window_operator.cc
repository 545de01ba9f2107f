#include "window/window_operator.h"

#include "window/pane_operator.h"
#include "window/session_operator.h"

namespace logtide {

std::unique_ptr<WindowOperator> WindowOperator::Create(const WindowSpec& spec, Nanos lateness,
                                                       EmitMode mode, Nanos early, Deps deps) {
  if (spec.is_session())
    return std::make_unique<SessionOperator>(spec, lateness, mode, early, deps);
  return std::make_unique<PaneOperator>(spec, lateness, mode, early, deps);
}

}  // namespace logtide
