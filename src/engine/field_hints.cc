#include "engine/field_hints.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
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

}  // namespace logtide
