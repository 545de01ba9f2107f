// Expressions (PlanExpr) as SQL. logtide's typing and null rules are written here once: a value
// of another type than an operation takes is null, values of different types are not equal and
// do not order, and null is SQL's unknown. The dialects (duckdb_sql.cc, flink_sql.cc) supply how
// a field's value is tested for its type and read as one, and their spelling of operators and
// functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "plan/query_plan.h"

namespace logtide {

class SqlExprWriter {
 public:
  using Type = PlanExpr::Type;
  using Op = PlanExpr::Op;
  virtual ~SqlExprWriter() = default;

  // Returns `e` as SQL of type `t` (kBool, kNumber, kString): logtide's value when it is of
  // that type, else NULL (null, or a value of another type, which logtide counts as a mismatch
  // and takes as null).
  std::string As(const PlanExpr& e, Type t);
  // Returns `e` as a SQL BOOLEAN: true, false, or NULL where logtide's is null or not boolean.
  // An event passes a --where or filter when it is TRUE.
  std::string Bool(const PlanExpr& e) { return As(e, Type::kBool); }
  // Returns `e`, of type kAny (a field, or an if or coalesce whose values are of several types),
  // as the dialect holds a value of any type: what Field gives.
  std::string Any(const PlanExpr& e);

 protected:
  // The kinds of JSON value that compare: numbers, strings, booleans, and objects and arrays.
  enum class Kind { kNumber, kString, kBool, kOther };

  // Returns the value of the field at `path` as the dialect reads it.
  virtual std::string Field(const FieldPath& path) = 0;
  // Returns a condition that holds when the field value `f` (from Field) is present and not null.
  virtual std::string Present(const std::string& f) = 0;
  // Returns a condition that holds when `f` is a value of kind `k` (never for null).
  virtual std::string KindIs(const std::string& f, Kind k) = 0;
  // Returns `f` as SQL of type `t` when it is of that kind, else NULL.
  virtual std::string FieldAs(const std::string& f, Type t) = 0;
  // Returns `f` as SQL of type `t`. REQUIRES: `f` holds a value of that kind (KindIs held).
  virtual std::string Convert(const std::string& f, Type t) { return FieldAs(f, t); }
  // Returns `v`, SQL of type `t` (kBool, kNumber, kString), as a value of any type (what Field
  // gives), NULL staying NULL.
  virtual std::string ToAny(const std::string& v, Type t) = 0;
  // Returns the SQL type name of `t` (BOOLEAN, DOUBLE, and the dialect's string type).
  virtual std::string TypeName(Type t) = 0;
  // Returns a OP b for two DOUBLE operands (+ - * / %), NULL where logtide's is null (a
  // division by zero, a result that is not finite). `nonzero`: b is a literal other than 0.
  virtual std::string Arith(Op op, const std::string& a, const std::string& b, bool nonzero) = 0;
  // Returns a function's call (startswith .. substr, not exists), its operands already of the
  // types the function takes; `e` is the call, for its pattern.
  virtual std::string Call(const PlanExpr& e, const std::vector<std::string>& args) = 0;

  // How the dialect spells the boolean literals, a string literal, a number literal as a double
  // (for arithmetic and function operands), Kleene's AND and OR of two booleans (SQL's, where
  // they are), a number's negation, and whether `x` is in a list of literals of its type (null
  // when `x` is).
  virtual std::string True() { return "TRUE"; }
  virtual std::string False() { return "FALSE"; }
  virtual std::string StringLiteral(std::string_view s);
  virtual std::string DoubleLiteral(const std::string& number) {
    return "CAST(" + number + " AS DOUBLE)";
  }
  virtual std::string Logic(Op op, const std::string& a, const std::string& b) {
    return "(" + a + (op == Op::kAnd ? " AND " : " OR ") + b + ")";
  }
  virtual std::string Negate(const std::string& x) { return "(-" + x + ")"; }
  virtual std::string InList(const std::string& x, const std::string& list) {
    return "(" + x + " IN (" + list + "))";
  }

  // Returns `v` as the dialect writes a literal (numbers as written, for comparisons).
  std::string Literal(const PlanLiteral& v);
  // Returns `e`, of any type, as a value of any type (what Field gives).
  std::string AnyOf(const PlanExpr& e);
  std::string Null(Type t) { return "CAST(NULL AS " + TypeName(t) + ")"; }

 private:
  // Whether `e` as type `t` is NULL whatever the event: null, or a value of another type.
  static bool AlwaysNull(const PlanExpr& e, Type t);
  std::string Typed(const PlanExpr& e);
  // Returns if(c, a, b) with the branches' SQL `a` and `b`: a when the condition is true, b when
  // it is false or null, NULL when it is of another type.
  std::string If(const PlanExpr& c, const std::string& a, const std::string& b);
  std::string Compare(const PlanExpr& e);
  std::string In(const PlanExpr& e);
  // An operand of a comparison of its own type: a literal as written, else Typed.
  std::string Operand(const PlanExpr& e);
  // Returns `value` when every one of `operands` (SQL) is not null, else NULL.
  std::string WhenNotNull(const std::vector<std::string>& operands, const std::string& value);
};

// Returns `d` as a SQL number literal: the shortest text that reads back as `d`.
std::string SqlNumber(double d);

}  // namespace logtide
