#include "agg/agg_spec.h"

#include <fmt/format.h>

#include "json/extractor.h"

namespace logtide {
namespace {

struct Fn {
  std::string_view name;
  AggKind kind;
};
constexpr Fn kFns[] = {
    {"count", AggKind::kCount}, {"sum", AggKind::kSum},
    {"min", AggKind::kMin},     {"max", AggKind::kMax},
    {"avg", AggKind::kAvg},     {"count_distinct", AggKind::kCountDistinct},
    {"first", AggKind::kFirst}, {"last", AggKind::kLast},
};
constexpr std::string_view kFnList =
    "count, count(f), sum(f), min(f), max(f), avg(f), count_distinct(f), first(f), last(f)";

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

std::string_view AggKindName(AggKind kind) {
  if (kind == AggKind::kCountField) return "count";
  for (const Fn& f : kFns) {
    if (f.kind == kind) return f.name;
  }
  return "?";
}

Status ParseAggSpec(std::string_view text, AggSpec* out) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument(
        fmt::format("--agg \"{}\": {} (expected [NAME=]FN, FN one of {})", text, why, kFnList));
  };
  AggSpec spec;
  spec.text = std::string(text);
  std::string_view rest = Trim(text);
  size_t eq = rest.find('=');
  size_t paren = rest.find('(');
  if (eq != std::string_view::npos && (paren == std::string_view::npos || eq < paren)) {
    spec.name = std::string(Trim(rest.substr(0, eq)));
    if (spec.name.empty()) return bad("empty name before '='");
    rest = Trim(rest.substr(eq + 1));
    paren = rest.find('(');
  }
  std::string_view fn = Trim(rest.substr(0, paren));
  if (paren != std::string_view::npos) {
    if (rest.back() != ')') return bad("missing ')'");
    std::string_view inner = Trim(rest.substr(paren + 1, rest.size() - paren - 2));
    if (fn == "count" && (inner.empty() || inner == "*")) {
      inner = {};  // count(*), count(): SQL's and Miller's spelling of count
    } else if (inner == "*") {
      return bad("'*' (every event) is for count(*) only: name a field");
    } else if (inner.empty()) {
      return bad("empty field inside ()");
    } else if (inner.find_first_of("()") != std::string_view::npos) {
      return bad("a field name cannot hold parentheses (several aggregates are separated by "
                 "commas: sum(bytes),avg(latency_ms))");
    } else {
      Status s = NormalizeFieldPath("--agg", inner, &spec.field);
      if (!s.ok()) return bad(s.message());
    }
  }
  const Fn* found = nullptr;
  for (const Fn& f : kFns) {
    if (f.name == fn) found = &f;
  }
  if (found == nullptr) return bad(fmt::format("unknown function \"{}\"", fn));
  spec.kind = found->kind;
  if (spec.kind == AggKind::kCount) {
    if (!spec.field.empty()) spec.kind = AggKind::kCountField;
  } else if (spec.field.empty()) {
    return bad(fmt::format("{} needs a field, as in {}(bytes)", fn, fn));
  }
  if (spec.name.empty()) {
    spec.name = spec.field.empty() ? std::string(fn) : fmt::format("{}_{}", fn, spec.field);
  }
  *out = std::move(spec);
  return Status::Ok();
}

Status ParseAggList(std::string_view text, std::vector<AggSpec>* out) {
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == '(') ++depth;
    if (c == ')') --depth;
    // The last piece is parsed whatever the depth: unbalanced parentheses fail there.
    if (c != ',' || (depth > 0 && i < text.size())) continue;
    AggSpec spec;
    Status s = ParseAggSpec(text.substr(start, i - start), &spec);
    if (!s.ok()) return s;
    out->push_back(std::move(spec));
    start = i + 1;
  }
  return Status::Ok();
}

}  // namespace logtide
