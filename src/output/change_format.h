// The change formats (--changes): how a record that revises an earlier one of its window and
// key is written (output/change_writer.h).
#pragma once

#include <string_view>

namespace logtide {

enum class ChangeFormat {
  kSnapshot,  // the whole record each time (the default)
  kRetract,   // "op":"-" of the previous record, then "op":"+" of the new one
  kDebezium,  // {"op":"c"|"u"|"d","before":...,"after":...}
};

inline std::string_view ChangeFormatName(ChangeFormat f) {
  switch (f) {
    case ChangeFormat::kSnapshot:
      return "snapshot";
    case ChangeFormat::kRetract:
      return "retract";
    case ChangeFormat::kDebezium:
      return "debezium";
  }
  return "snapshot";
}

}  // namespace logtide
