// When a window's record is written (--emit): once, when the watermark passes its end
// (kFinal), or again with a revision for each late event it accepts (kUpdate).
#pragma once

namespace logtide {

enum class EmitMode { kFinal, kUpdate };

}  // namespace logtide
