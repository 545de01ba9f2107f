#include "engine/field_hints.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "expr/expr.h"
#include "json/field_path.h"
#include "util/edit_distance.h"

namespace logtide {

namespace {

// The paths (canonical text) of the fields of `e` and of the objects in it.
void CollectPaths(simdjson::dom::element e, FieldPath* prefix, std::set<std::string>* out) {
  if (e.type() != simdjson::dom::element_type::OBJECT) return;
  for (auto field : simdjson::dom::object(e)) {
    prefix->push_back(PathSegment{std::string(field.key)});
    out->insert(FieldPathText(*prefix));
    CollectPaths(field.value, prefix, out);
    prefix->pop_back();
  }
}

}  // namespace

std::string ShownPath(const std::string& path) {
  return path == FieldPathName(path) ? "\"" + path + "\"" : PathAsExpr(path);
}

FieldHints::FieldHints(const std::vector<std::string>& lines) {
  simdjson::dom::parser parser;
  for (const std::string& line : lines) {
    simdjson::dom::element e;
    FieldPath prefix;
    if (!parser.parse(line).get(e)) CollectPaths(e, &prefix, &have_);
  }
}

std::string FieldHints::For(const std::string& field) const {
  std::string best;
  size_t best_distance = SIZE_MAX;
  // By the names (a key holding a dot is "log.level" as the object path log.level is), so the
  // one path of the two the events have is the hint.
  const std::string name = FieldPathName(field);
  for (const std::string& h : have_) {
    const size_t d = EditDistance(name, FieldPathName(h));
    if (d < best_distance) best_distance = d, best = h;
  }
  if (!best.empty() && best_distance <= std::max<size_t>(2, name.size() / 3))
    return fmt::format("; did you mean {}?", ShownPath(best));
  if (have_.empty()) return "";
  std::string list;
  size_t shown = 0;
  for (const std::string& h : have_) {
    if (shown++ == 8) {
      list += ", ...";
      break;
    }
    list += (list.empty() ? "" : ", ") + ShownPath(h);
  }
  return "; the events have " + list;
}

std::string FieldHints::TimeLike(const std::string& field) const {
  static constexpr const char* kNames[] = {
      "@timestamp", "timestamp", "time", "ts", "@t", "datetime", "date", "eventtime",
      "event_time", "time_local", "logtime", "log_time", "created_at", "asctime"};
  for (const char* want : kNames) {
    for (const std::string& h : have_) {
      FieldPath path;
      size_t error_at;
      if (!ParseFieldPath(h, &path, &error_at).ok() || path.back().is_index) continue;
      std::string name = path.back().key;  // the last key: req.time is time-like too
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (name == want && h != field)
        return fmt::format("; the lines have {}, a time-like field: --time {}", ShownPath(h), h);
    }
  }
  return "";
}

}  // namespace logtide
