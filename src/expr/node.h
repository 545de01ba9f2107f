// The parsed form of an expression (expr.h), shared by its parser, evaluator and printer: a
// flat list of nodes, operands before the nodes that use them, and the function table.
#pragma once

#include <re2/stringpiece.h>

#include <climits>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "expr/expr.h"
#include "json/value.h"

namespace logtide {

struct Expr::Node {
  explicit Node(Op o) : op(o) {}
  Op op;
  std::vector<int> args;
  int index = -1;       // kField: the path; kMatches, kRegexp*: the regex
  ValueRef literal;     // kLiteral (a string's bytes are in `text`)
  std::string text;     // kLiteral's string; kMatches' pattern; string results of functions
  std::string pattern;  // kRegexp*: the pattern
  // kRegexp*: the submatches a search fills in (sized at parse time: the groups the
  // replacement or the extracted group needs), reused from event to event.
  std::vector<re2::StringPiece> groups;
  std::vector<ValueRef> list;  // kIn: the literals (strings' bytes in list_text)
  std::vector<std::string> list_text;
};

namespace expr_internal {

struct FnInfo {
  std::string_view name;
  int min_args, max_args;  // max_args kAnyArgs: no upper bound
};
inline constexpr int kAnyArgs = INT_MAX;

// Indexed by ExprOp - ExprOp::kExists.
inline constexpr FnInfo kFns[] = {
    {"exists", 1, 1}, {"startswith", 2, 2}, {"endswith", 2, 2}, {"contains", 2, 2},
    {"matches", 2, 2}, {"floor", 1, 1},     {"ceil", 1, 1},     {"round", 1, 2},
    {"abs", 1, 1},     {"lower", 1, 1},     {"upper", 1, 1},    {"len", 1, 1},
    {"substr", 2, 3},  {"regexp_replace", 3, 3}, {"regexp_extract", 2, 3}, {"if", 3, 3},
    {"coalesce", 1, kAnyArgs}, {"split_part", 3, 3}, {"concat", 1, kAnyArgs},
};
inline constexpr std::string_view kFnList =
    "exists, startswith, endswith, contains, matches, floor, ceil, round, abs, lower, upper, len, "
    "substr, regexp_replace, regexp_extract, if, coalesce, split_part, concat";

// The words an expression reserves: not field names when written bare.
inline bool IsKeyword(std::string_view w) {
  return w == "and" || w == "or" || w == "not" || w == "in" || w == "true" || w == "false" ||
         w == "null";
}

inline double AsDouble(const ValueRef& v) { return v.is_int ? static_cast<double>(v.i) : v.d; }

}  // namespace expr_internal
}  // namespace logtide
