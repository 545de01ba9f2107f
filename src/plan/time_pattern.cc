#include "plan/time_pattern.h"

#include <fmt/format.h>

#include <cctype>

namespace logtide {
namespace {

// One conversion specifier logtide's strptime takes (time/time_format.cc), as each dialect
// spells it. A null spelling is a refusal, and `refusal` says why. Sources: DuckDB's "Date
// Format" page (strptime's specifiers: %-d for an unpadded day, no %e, %h or %s, no composite
// %T %F %D %R), and Java's DateTimeFormatter pattern letters, which Flink's TO_TIMESTAMP takes.
struct Specifier {
  char name;
  const char* duckdb;
  const char* java;
  // Java reads it differently from logtide: SSS takes exactly 3 fraction digits (logtide any
  // number), xx takes +hhmm only (logtide also +hh:mm and Z), z a zone name by its own rules
  // (logtide UTC, GMT and Z only).
  bool java_inexact;
  const char* refusal;  // why a dialect with a null spelling cannot read it
};

constexpr Specifier kSpecifiers[] = {
    {'Y', "%Y", "yyyy", false, nullptr},
    {'y', "%y", "yy", false, nullptr},
    {'m', "%m", "MM", false, nullptr},
    {'d', "%d", "dd", false, nullptr},
    {'e', "%-d", "d", false, nullptr},
    {'H', "%H", "HH", false, nullptr},
    {'I', "%I", "hh", false, nullptr},
    {'p', "%p", "a", false, nullptr},
    {'M', "%M", "mm", false, nullptr},
    {'S', "%S", "ss", false, nullptr},
    {'f', "%f", "SSS", true, nullptr},
    {'z', "%z", "xx", true, nullptr},
    {'Z', "%Z", "z", true, nullptr},
    {'b', "%b", "MMM", false, nullptr},
    {'h', "%b", "MMM", false, nullptr},
    {'B', "%B", "MMMM", false, nullptr},
    {'a', "%a", "EEE", false, nullptr},
    {'A', "%A", "EEEE", false, nullptr},
    {'T', "%H:%M:%S", "HH:mm:ss", false, nullptr},
    {'F', "%Y-%m-%d", "yyyy-MM-dd", false, nullptr},
    {'D', "%m/%d/%y", "MM/dd/yy", false, nullptr},
    {'R', "%H:%M", "HH:mm", false, nullptr},
    {'%', "%%", "%", false, nullptr},
    {'s', nullptr, nullptr, false,
     "seconds since 1970 have no specifier in DuckDB's strptime, nor a pattern letter in Java's "
     "DateTimeFormatter (Flink's TO_TIMESTAMP); use --time-format epoch_s for a field that holds "
     "only that number"},
};

const Specifier* Find(char name) {
  for (const Specifier& s : kSpecifiers) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

// Appends a byte outside the specifiers to a Java pattern: letters quoted, a quote doubled.
void AppendJavaLiteral(char c, std::string* out) {
  if (std::isalpha(static_cast<unsigned char>(c))) {
    *out += '\'';
    *out += c;
    *out += '\'';
  } else if (c == '\'') {
    *out += "''";
  } else {
    *out += c;
  }
}

}  // namespace

Status TranslateTimePattern(std::string_view pattern, SqlDialect dialect, SqlTimePattern* out) {
  SqlTimePattern t;
  std::string inexact;  // the names of the specifiers read differently, once each
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c != '%') {
      if (dialect == SqlDialect::kDuckDb) {
        t.text += c;
      } else {
        AppendJavaLiteral(c, &t.text);
      }
      continue;
    }
    if (++i == pattern.size()) {
      return Status::InvalidArgument(
          fmt::format("--time-format \"{}\": pattern ends with a lone '%'", pattern));
    }
    const Specifier* s = Find(pattern[i]);
    if (s == nullptr) {
      return Status::InvalidArgument(
          fmt::format("--time-format \"{}\": unknown directive %{}", pattern, pattern[i]));
    }
    const char* spelling = dialect == SqlDialect::kDuckDb ? s->duckdb : s->java;
    if (spelling == nullptr)
      return Status::InvalidArgument(fmt::format("%{}: {}", s->name, s->refusal));
    t.text += spelling;
    if (dialect == SqlDialect::kFlink && s->java_inexact &&
        inexact.find(s->name) == std::string::npos) {
      inexact += s->name;
    }
  }
  for (size_t i = 0; i < inexact.size(); ++i) {
    t.inexact += i == 0                      ? ""
                 : i + 1 == inexact.size() ? " and "
                                           : ", ";
    t.inexact += '%';
    t.inexact += inexact[i];
  }
  *out = std::move(t);
  return Status::Ok();
}

}  // namespace logtide
