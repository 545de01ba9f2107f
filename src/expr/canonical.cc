// Expressions: the canonical text (what goes into a query's identity), field paths in an
// expression's form, and the read-only view of the nodes.
#include <fmt/format.h>

#include <iterator>

#include "expr/expr.h"
#include "expr/node.h"
#include "json/field_path.h"
#include "json/json_text.h"

namespace logtide {
namespace {

// A path segment as written in canonical text: bare when it is an identifier, else quoted.
void AppendSegment(std::string_view seg, std::string* out) {
  bool bare = !seg.empty() && IsIdentifierStart(seg[0]) && !expr_internal::IsKeyword(seg);
  for (char c : seg) bare = bare && IsIdentifierChar(c);
  out->push_back('.');
  if (bare) {
    out->append(seg);
  } else {
    AppendJsonString(seg, out);
  }
}

}  // namespace

std::string PathAsExpr(std::string_view path) {
  FieldPath segments;
  size_t at;
  if (!ParseFieldPath(path, &segments, &at).ok()) return std::string(path);
  std::string out;
  for (const PathSegment& seg : segments) {
    if (seg.is_index) {
      fmt::format_to(std::back_inserter(out), "[{}]", seg.index);
    } else {
      AppendSegment(seg.key, &out);
    }
  }
  return out;
}

// ---- canonical text ----

std::string Expr::Canonical() const {
  std::string out;
  if (root_ >= 0) CanonicalNode(root_, &out);
  return out;
}

void Expr::CanonicalNode(int idx, std::string* out) const {
  const Node& n = nodes_[idx];
  auto literal = [&](const ValueRef& v) {
    if (v.type == ValueType::kString) {
      AppendJsonString(v.s, out);
    } else {
      AppendJsonValue(v, out);
    }
  };
  static constexpr std::string_view kBinary[] = {"and", "or", "==", "!=", "<", "<=", ">", ">=",
                                                 "in",  "+",  "-",  "*",  "/", "%"};
  switch (n.op) {
    case Op::kField:
      out->append(PathAsExpr(paths_[n.index]));
      return;
    case Op::kLiteral:
      literal(n.literal);
      return;
    case Op::kNot:
    case Op::kNeg:
      out->append(n.op == Op::kNot ? "(not " : "(-");
      CanonicalNode(n.args[0], out);
      out->push_back(')');
      return;
    case Op::kIn:
      out->push_back('(');
      CanonicalNode(n.args[0], out);
      out->append(" in [");
      for (size_t i = 0; i < n.list.size(); ++i) {
        if (i) out->push_back(',');
        literal(n.list[i]);
      }
      out->append("])");
      return;
    default:
      break;
  }
  if (n.op >= Op::kExists) {
    out->append(expr_internal::kFns[static_cast<int>(n.op) - static_cast<int>(Op::kExists)].name);
    out->push_back('(');
    for (size_t i = 0; i < n.args.size(); ++i) {
      if (i) out->push_back(',');
      CanonicalNode(n.args[i], out);
    }
    out->push_back(')');
    return;
  }
  out->push_back('(');
  CanonicalNode(n.args[0], out);
  out->push_back(' ');
  out->append(kBinary[static_cast<int>(n.op) - static_cast<int>(Op::kAnd)]);
  out->push_back(' ');
  CanonicalNode(n.args[1], out);
  out->push_back(')');
}

// ---- the structure, read-only ----

Expr::NodeView Expr::node(int idx) const {
  const Node& n = nodes_[idx];
  NodeView v;
  v.op = n.op;
  v.args = n.args;
  if (n.op == Op::kField) v.path = n.index;
  if (n.op == Op::kLiteral) v.literal = n.literal;
  if (n.op == Op::kIn) v.list = n.list;
  if (n.op == Op::kMatches || n.op == Op::kRegexpReplace || n.op == Op::kRegexpExtract)
    v.pattern = n.pattern;
  return v;
}

}  // namespace logtide
