// SplitCsvRow (csv.h), inline: it is on every row's path.
#pragma once

#include <cstring>
#include <string>

#include <fmt/format.h>

namespace logtide {

std::string CsvFieldError(std::string_view what, size_t field, size_t byte);

template <typename F>
Status SplitCsvRow(std::string_view line, char sep, size_t* count, F&& on_field) {
  const char* p = line.data();
  const char* const end = p + line.size();
  size_t field = 0;
  while (true) {
    ++field;
    if (sep == ',' && p < end && *p == '"') {
      const char* const start = ++p;
      while (true) {
        const void* q = std::memchr(p, '"', static_cast<size_t>(end - p));
        if (q == nullptr) {
          return Status::DataError(
              BadKind::kNotJson,
              CsvFieldError("has no closing double quote on its line (a quoted field that spans "
                            "lines is not read)",
                            field, static_cast<size_t>(start - 1 - line.data()) + 1));
        }
        p = static_cast<const char*>(q);
        if (p + 1 < end && p[1] == '"') {  // "" inside: one quote
          p += 2;
          continue;
        }
        break;
      }
      on_field(std::string_view(start, static_cast<size_t>(p - start)), true);
      ++p;  // the closing quote
      if (p == end) break;
      if (*p != sep) {
        return Status::DataError(
            BadKind::kNotJson,
            CsvFieldError(fmt::format("has text after its closing double quote, at byte {}",
                                      static_cast<size_t>(p - line.data()) + 1),
                          field, static_cast<size_t>(start - 1 - line.data()) + 1));
      }
      ++p;
      continue;
    }
    const void* q = std::memchr(p, sep, static_cast<size_t>(end - p));
    const char* const stop = q == nullptr ? end : static_cast<const char*>(q);
    on_field(std::string_view(p, static_cast<size_t>(stop - p)), false);
    if (stop == end) break;
    p = stop + 1;
  }
  *count = field;
  return Status::Ok();
}

}  // namespace logtide
