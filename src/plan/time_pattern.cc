#include "plan/time_pattern.h"
#include "util/quote.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace logtide {
namespace {

// A byte as QuoteForMessage escapes it (\xNN when it is not printable), without its quotes.
std::string Unquoted(const std::string& quoted) { return quoted.substr(1, quoted.size() - 2); }

}  // namespace

namespace {

// One conversion specifier logtide's strptime takes (time/time_format.cc), as each dialect
// spells it. A null spelling is a refusal, and `refusal` says why. Sources: DuckDB's "Date
// Format" page (strptime's specifiers: %-d for an unpadded day, no %e, %h or %s, no composite
// %T %F %D %R), and Java's DateTimeFormatter pattern letters, which Flink's TO_TIMESTAMP takes.
struct Specifier {
  char name;
  const char* duckdb;
  const char* java;
  // Java reads it differently from logtide: yy gives a year from 2000 to 2099 (logtide 69 to
  // 99 as 1969 to 1999), SSS takes exactly 3 fraction digits (logtide any number), xx takes
  // +hhmm only (logtide also +hh:mm and Z), z a zone name by its own rules (logtide UTC, GMT
  // and Z only).
  bool java_inexact;
  const char* refusal;  // why a dialect with a null spelling cannot read it
};

constexpr Specifier kSpecifiers[] = {
    {'Y', "%Y", "yyyy", false, nullptr},
    {'y', "%y", "yy", true, nullptr},
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
    {'D', "%m/%d/%y", "MM/dd/yy", true, nullptr},
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

// Returns whether DateTimeFormatter would read `c` as more than itself: a pattern letter, or
// one of the characters it reserves ([ and ] open and close an optional section; {, } and #
// are reserved for future use).
bool JavaSpecial(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) ||
         std::string_view("[]{}#").find(c) != std::string_view::npos;
}

// Appends the text between two specifiers to a Java pattern: each run of special characters
// in one quoted section (two quoted letters side by side, 'a''t', would read as a't), and a
// quote as '' (a quote both inside and outside a quoted section).
void AppendJavaLiteral(std::string_view text, std::string* out) {
  bool quoted = false;
  for (char c : text) {
    if (c == '\'') {
      *out += "''";
      continue;
    }
    if (JavaSpecial(c) != quoted) {
      *out += '\'';
      quoted = !quoted;
    }
    *out += c;
  }
  if (quoted) *out += '\'';
}

}  // namespace

Status TranslateTimePattern(std::string_view pattern, SqlDialect dialect, SqlTimePattern* out) {
  SqlTimePattern t;
  std::string inexact;  // the names of the specifiers read differently, once each
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      const size_t end = std::min(pattern.find('%', i), pattern.size());
      const std::string_view text = pattern.substr(i, end - i);
      if (dialect == SqlDialect::kDuckDb) {
        t.text += text;
      } else {
        AppendJavaLiteral(text, &t.text);
      }
      i = end - 1;
      continue;
    }
    if (++i == pattern.size()) {
      return Status::InvalidArgument(
          fmt::format("--time-format {}: pattern ends with a lone '%'", QuoteForMessage(pattern, /*backslash_quotes=*/true)));
    }
    const Specifier* s = Find(pattern[i]);
    if (s == nullptr) {
      return Status::InvalidArgument(
          fmt::format("--time-format {}: unknown directive %{}",
                      QuoteForMessage(pattern, /*backslash_quotes=*/true),
                      Unquoted(QuoteForMessage(std::string_view(&pattern[i], 1)))));
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
    t.inexact += i == 0 ? "" : i + 1 == inexact.size() ? " and " : ", ";
    t.inexact += '%';
    t.inexact += inexact[i];
  }
  *out = std::move(t);
  return Status::Ok();
}

}  // namespace logtide
