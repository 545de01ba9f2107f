// Expressions: the small language of --where, of filter aggregates and of derived keys.
// Parsed once into a flat list of nodes; evaluated per event over the values the extractor
// read, without allocating (string results live in per-node buffers that are reused).
//
// Values are JSON values (json/value.h). Comparisons type as JSON: numbers by value (200 ==
// 200.0), strings by bytes, booleans and objects/arrays by equality only; values of different
// types are not equal and do not order (the comparison is false). A null operand (an absent
// field or a JSON null) makes a comparison, an arithmetic result and a function result null,
// and `and`, `or`, `not` follow SQL's three-valued logic, null being unknown. An operand of the
// wrong type (a string in arithmetic, a number under `and`) gives null and is counted as a type
// mismatch. Grammar and functions: man/logtide.1, EXPRESSIONS.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "json/value.h"
#include "util/status.h"

namespace re2 {
class RE2;
}

namespace logtide {

// An expression's operations: operands, operators and functions (in the order of the function
// table in node.h, from kExists).
enum class ExprOp : uint8_t {
  kField,
  kLiteral,
  kNot,
  kAnd,
  kOr,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kIn,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kNeg,
  // functions
  kExists,
  kStartsWith,
  kEndsWith,
  kContains,
  kMatches,
  kFloor,
  kCeil,
  kRound,
  kAbs,
  kLower,
  kUpper,
  kLen,
  kSubstr,
  kRegexpReplace,
  kRegexpExtract,
  kIf,
  kCoalesce,
  kSplitPart,
  kConcat,
};

// A field path (canonical text, json/field_path.h) as an expression writes it, in jq's form:
// .req.method, ."log.level", .tags[0].
std::string PathAsExpr(std::string_view path);

// Splits `text` at the commas outside parentheses, brackets and double-quoted strings, so
// that "a=substr(p, 0, 3),b" is two pieces. Pieces are not trimmed.
std::vector<std::string_view> SplitTopLevel(std::string_view text);

class Expr {
 public:
  Expr();
  ~Expr();
  Expr(Expr&&) noexcept;
  Expr& operator=(Expr&&) noexcept;

  // Parses `text`. Errors are InvalidArgument with the 1-based byte position: "position 9:
  // expected an operand".
  static Status Parse(std::string_view text, Expr* out);

  // The field paths the expression reads, in the order first written, in canonical text
  // (json/field_path.h).
  const std::vector<std::string>& paths() const { return paths_; }
  // Tells where path i's value will be in the values Eval reads: values[slots[i]].
  void Bind(const std::vector<int>& slots) { slots_ = slots; }

  // Evaluates over one event's values. The result's strings stay valid until the next Eval.
  ValueRef Eval(const ValueRef* values);
  // Whether the expression is true for this event (false and null are not).
  bool Test(const ValueRef* values) {
    if (compare_field_ >= 0) return TestCompare(values[slots_[compare_field_]]);
    return Eval(values).type == ValueType::kTrue;
  }
  // Type mismatches met so far by Eval.
  uint64_t type_errors() const { return type_errors_; }
  // Comparisons so far of a number with a string literal, or of a string with a number
  // literal (status >= "500"): never equal, never ordered, most likely a mistake.
  uint64_t literal_kind_misses() const { return literal_kind_misses_; }

  // A canonical text: what was parsed, with its structure made explicit (every operation in
  // parentheses) and literals written in one form. Equal texts mean the same expression.
  std::string Canonical() const;

  // A read-only view of one parsed node, for translating the expression into another language
  // (plan/query_plan.h). Operands come before the nodes that use them.
  struct NodeView {
    ExprOp op;
    std::vector<int> args;       // the operands' node numbers
    int path = -1;               // field: the index in paths()
    ValueRef literal;            // literal
    std::vector<ValueRef> list;  // in: the literals
    std::string_view pattern;    // matches, regexp_replace, regexp_extract: the regular
                                 // expression (also args[1], a literal)
  };
  // Returns the number of the node the whole expression is. REQUIRES: Parse succeeded.
  int root() const { return root_; }
  // Returns node `n`. Its strings stay valid as long as this Expr. REQUIRES: 0 <= n < the
  // number of nodes (a node number from root() or from args).
  NodeView node(int n) const;

 private:
  using Op = ExprOp;
  struct Node;
  class Parser;
  ValueRef EvalNode(int n, const ValueRef* values);
  ValueRef Mismatch() {
    ++type_errors_;
    return ValueRef::Null();
  }
  void CanonicalNode(int n, std::string* out) const;
  bool TestCompare(const ValueRef& v) const;

  std::vector<Node> nodes_;
  int root_ = -1;
  std::vector<std::string> paths_;
  std::vector<int> slots_;
  std::vector<std::unique_ptr<re2::RE2>> regexes_;
  uint64_t type_errors_ = 0;
  mutable uint64_t literal_kind_misses_ = 0;  // counted by the const TestCompare too
  // When the expression is a field compared with a number (status >= 500, the most common
  // filter), Test does not walk the nodes: the field's path, the operator as seen with the
  // field on the left (0 ==, 1 !=, 2 <, 3 <=, 4 >, 5 >=) and the number.
  int compare_field_ = -1;
  int compare_op_ = 0;
  ValueRef compare_number_;
};

// Eval(...).type == kTrue for `field OP number`: a null field makes the comparison null, a
// value of another type is only unequal (eval.cc, CompareHolds).
inline bool Expr::TestCompare(const ValueRef& v) const {
  if (v.type != ValueType::kNumber) {
    literal_kind_misses_ += v.type == ValueType::kString;
    return v.type != ValueType::kNull && compare_op_ == 1;
  }
  const int c = v.is_int && compare_number_.is_int
                    ? (v.i > compare_number_.i) - (v.i < compare_number_.i)
                    : CompareValues(v, compare_number_);
  switch (compare_op_) {
    case 0: return c == 0;
    case 1: return c != 0;
    case 2: return c < 0;
    case 3: return c <= 0;
    case 4: return c > 0;
    default: return c >= 0;
  }
}

}  // namespace logtide
