#include "json/line_format_hint.h"

namespace logtide {
namespace {

bool IsKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

}  // namespace

std::string_view LineFormatHint(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (i == line.size() || line[i] == '{' || line[i] == '[' || line[i] == '"') return "";
  size_t key_end = i;
  while (key_end < line.size() && IsKeyChar(line[key_end])) ++key_end;
  if (key_end > i && key_end < line.size() && line[key_end] == '=') {
    return "the line looks like logfmt (key=value pairs), not JSON: --input-format logfmt reads "
           "logfmt";
  }
  bool quoted = false;
  size_t commas = 0, tabs = 0;
  for (size_t k = i; k < line.size(); ++k) {
    if (line[k] == '"') quoted = !quoted;
    if (!quoted && line[k] == ',') ++commas;
    if (line[k] == '\t') ++tabs;
  }
  if (tabs > 0) {
    return "the line looks like TSV (fields separated by tabs), not JSON: --input-format tsv "
           "reads TSV with a header line";
  }
  if (commas > 0) {
    return "the line looks like CSV (fields separated by commas), not JSON: --input-format csv "
           "reads CSV with a header line";
  }
  return "";
}

}  // namespace logtide
