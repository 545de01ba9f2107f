#include "plan/sql_expr.h"

#include <fmt/format.h>

#include "plan/sql_text.h"

namespace logtide {
namespace {

bool IsOrdering(PlanExpr::Op op) {
  return op == PlanExpr::Op::kLt || op == PlanExpr::Op::kLe || op == PlanExpr::Op::kGt ||
         op == PlanExpr::Op::kGe;
}

const char* CompareSql(PlanExpr::Op op) {
  switch (op) {
    case PlanExpr::Op::kEq:
      return "=";
    case PlanExpr::Op::kNe:
      return "<>";
    case PlanExpr::Op::kLt:
      return "<";
    case PlanExpr::Op::kLe:
      return "<=";
    case PlanExpr::Op::kGt:
      return ">";
    default:
      return ">=";
  }
}

// The type a literal is of, for comparing: booleans are one kind.
PlanExpr::Type LiteralType(const PlanLiteral& l) {
  switch (l.type) {
    case ValueType::kNumber:
      return PlanExpr::Type::kNumber;
    case ValueType::kString:
      return PlanExpr::Type::kString;
    case ValueType::kFalse:
    case ValueType::kTrue:
      return PlanExpr::Type::kBool;
    default:
      return PlanExpr::Type::kNull;
  }
}

}  // namespace

std::string SqlNumber(double d) {
  std::string s = fmt::format("{}", d);
  // fmt writes 1e+300; both dialects read that, and 100000.0 as written.
  return s;
}

std::string SqlExprWriter::StringLiteral(std::string_view s) { return SqlString(s); }

std::string SqlExprWriter::Literal(const PlanLiteral& v) {
  switch (v.type) {
    case ValueType::kNumber:
      return v.is_int ? std::to_string(v.i) : SqlNumber(v.d);
    case ValueType::kString:
      return StringLiteral(v.s);
    case ValueType::kTrue:
      return True();
    case ValueType::kFalse:
      return False();
    default:
      return "NULL";
  }
}

std::string SqlExprWriter::WhenNotNull(const std::vector<std::string>& operands,
                                       const std::string& value) {
  std::string cond;
  for (const std::string& o : operands) cond += (cond.empty() ? "" : " AND ") + o + " IS NOT NULL";
  if (cond.empty()) return value;
  return "CASE WHEN " + cond + " THEN " + value + " END";
}

bool SqlExprWriter::AlwaysNull(const PlanExpr& e, Type t) {
  return e.type == Type::kNull || (e.type != Type::kAny && e.type != t);
}

std::string SqlExprWriter::As(const PlanExpr& e, Type t) {
  if (e.type == Type::kAny) {
    if (e.op == Op::kIf) return If(e.args[0], As(e.args[1], t), As(e.args[2], t));
    return FieldAs(Any(e), t);
  }
  if (e.type != t) return Null(t);  // null, or a value of another type: null
  return Typed(e);
}

std::string SqlExprWriter::If(const PlanExpr& c, const std::string& a, const std::string& b) {
  switch (c.type) {
    case Type::kNull:
      return b;
    case Type::kBool:
      return "CASE WHEN " + Typed(c) + " THEN " + a + " ELSE " + b + " END";
    case Type::kAny: {
      const std::string f = Any(c);
      return "CASE WHEN " + KindIs(f, Kind::kBool) + " AND " + Convert(f, Type::kBool) +
             " THEN " + a + " WHEN NOT (" + Present(f) + ") OR " + KindIs(f, Kind::kBool) +
             " THEN " + b + " END";
    }
    default:  // a number or a string: a mismatch
      return "NULL";
  }
}

std::string SqlExprWriter::AnyOf(const PlanExpr& e) {
  if (e.type == Type::kAny) return Any(e);
  if (e.type == Type::kNull) return ToAny(Null(Type::kString), Type::kString);
  return ToAny(Typed(e), e.type);
}

std::string SqlExprWriter::Any(const PlanExpr& e) {
  if (e.op == Op::kIf) return If(e.args[0], AnyOf(e.args[1]), AnyOf(e.args[2]));
  if (e.op == Op::kCoalesce) {
    std::string s = "CASE";
    for (const PlanExpr& a : e.args) {
      if (a.type == Type::kNull) continue;
      const std::string v = AnyOf(a);
      s += " WHEN " + Present(v) + " THEN " + v;
    }
    return s + " END";
  }
  return Field(e.path);
}

std::string SqlExprWriter::Operand(const PlanExpr& e) {
  return e.op == Op::kLiteral ? Literal(e.literal) : Typed(e);
}

std::string SqlExprWriter::Typed(const PlanExpr& e) {
  switch (e.op) {
    case Op::kField:
      return Field(e.path);
    case Op::kLiteral:
      // Numbers in arithmetic and functions as doubles: integer literals would be integer
      // arithmetic that overflows (an error in DuckDB, a wrap in Flink).
      return e.literal.type == ValueType::kNumber ? DoubleLiteral(Literal(e.literal))
                                                  : Literal(e.literal);
    case Op::kNot:
      return "(NOT " + As(e.args[0], Type::kBool) + ")";
    case Op::kAnd:
    case Op::kOr:
      // SQL's AND and OR are Kleene's, as logtide's.
      return Logic(e.op, As(e.args[0], Type::kBool), As(e.args[1], Type::kBool));
    case Op::kEq:
    case Op::kNe:
    case Op::kLt:
    case Op::kLe:
    case Op::kGt:
    case Op::kGe:
      return Compare(e);
    case Op::kIn:
      return In(e);
    case Op::kAdd:
    case Op::kSub:
    case Op::kMul:
    case Op::kDiv:
    case Op::kMod:
      if (AlwaysNull(e.args[0], Type::kNumber) || AlwaysNull(e.args[1], Type::kNumber))
        return Null(Type::kNumber);
      return Arith(e.op, As(e.args[0], Type::kNumber), As(e.args[1], Type::kNumber),
                   e.args[1].op == Op::kLiteral && e.args[1].type == Type::kNumber &&
                       e.args[1].literal.d != 0);
    case Op::kNeg:
      if (AlwaysNull(e.args[0], Type::kNumber)) return Null(Type::kNumber);
      return Negate(As(e.args[0], Type::kNumber));
    case Op::kExists:
      return "(" + Present(Field(e.args[0].path)) + ")";
    case Op::kIf:  // of one type (kAny is As's)
      return If(e.args[0], As(e.args[1], e.type), As(e.args[2], e.type));
    case Op::kCoalesce: {
      std::string s;
      for (const PlanExpr& a : e.args) {
        if (a.type != Type::kNull) s += (s.empty() ? "" : ", ") + Typed(a);
      }
      return "COALESCE(" + s + ")";
    }
    default:
      break;
  }
  // Functions: each operand of the type the function takes.
  std::vector<std::string> args;
  for (size_t i = 0; i < e.args.size(); ++i) {
    Type t = Type::kString;
    switch (e.op) {
      case Op::kFloor:
      case Op::kCeil:
      case Op::kRound:
      case Op::kAbs:
        t = Type::kNumber;
        break;
      case Op::kSubstr:
        t = i == 0 ? Type::kString : Type::kNumber;
        break;
      case Op::kRegexpExtract:
      case Op::kSplitPart:
        t = i < 2 ? Type::kString : Type::kNumber;
        break;
      default:
        break;
    }
    // A null operand, or one of another type, makes the call null.
    if (AlwaysNull(e.args[i], t)) return Null(e.type);
    args.push_back(As(e.args[i], t));
  }
  return Call(e, args);
}

std::string SqlExprWriter::Compare(const PlanExpr& e) {
  const PlanExpr& a = e.args[0];
  const PlanExpr& b = e.args[1];
  const std::string op = CompareSql(e.op);
  // Two values of different kinds: only != holds. Booleans, objects and arrays do not order.
  const std::string differ = e.op == Op::kNe ? True() : False();
  if (a.type == Type::kNull || b.type == Type::kNull) return Null(Type::kBool);

  if (a.type != Type::kAny && b.type != Type::kAny) {
    const std::string x = Operand(a), y = Operand(b);
    std::vector<std::string> operands;
    if (a.op != Op::kLiteral) operands.push_back(x);
    if (b.op != Op::kLiteral) operands.push_back(y);
    if (a.type != b.type || (a.type == Type::kBool && IsOrdering(e.op)))
      return WhenNotNull(operands, differ);
    return "(" + x + " " + op + " " + y + ")";
  }

  if (a.type == Type::kAny && b.type == Type::kAny) {
    const std::string f = Any(a), g = Any(b);
    std::string s = "CASE";
    for (const auto& [kind, type] :
         {std::pair{Kind::kNumber, Type::kNumber}, std::pair{Kind::kString, Type::kString},
          std::pair{Kind::kBool, Type::kBool}}) {
      if (kind == Kind::kBool && IsOrdering(e.op)) continue;
      s += fmt::format(" WHEN {} AND {} THEN {} {} {}", KindIs(f, kind), KindIs(g, kind),
                       Convert(f, type), op, Convert(g, type));
    }
    if (!IsOrdering(e.op)) {
      // Objects and arrays: equal when their JSON texts are.
      s += fmt::format(" WHEN {} AND {} THEN {} {} {}", KindIs(f, Kind::kOther),
                       KindIs(g, Kind::kOther), f, op, g);
    }
    return s + fmt::format(" WHEN {} AND {} THEN {} END", Present(f), Present(g), differ);
  }

  // A field against a value of a known type: compared when the field holds that type.
  const bool field_first = a.type == Type::kAny;
  const PlanExpr& field = field_first ? a : b;
  const PlanExpr& other = field_first ? b : a;
  const std::string f = Any(field);
  const std::string v = Operand(other);
  const std::string present =
      Present(f) + (other.op == Op::kLiteral ? "" : " AND " + v + " IS NOT NULL");
  if (other.type == Type::kBool && IsOrdering(e.op))
    return "CASE WHEN " + present + " THEN " + False() + " END";
  const Kind kind = other.type == Type::kNumber   ? Kind::kNumber
                    : other.type == Type::kString ? Kind::kString
                                                  : Kind::kBool;
  const std::string x = Convert(f, other.type);
  return fmt::format("CASE WHEN {} THEN {} {} {} WHEN {} THEN {} END", KindIs(f, kind),
                     field_first ? x : v, op, field_first ? v : x, present, differ);
}

std::string SqlExprWriter::In(const PlanExpr& e) {
  const PlanExpr& a = e.args[0];
  if (a.type == Type::kNull) return Null(Type::kBool);
  // The literals of each type (null in the list never matches).
  auto items = [&](Type t) {
    std::string s;
    for (const PlanLiteral& l : e.list) {
      if (LiteralType(l) == t) s += (s.empty() ? "" : ", ") + Literal(l);
    }
    return s;
  };
  if (a.type != Type::kAny) {
    const std::string x = Typed(a);
    const std::string list = items(a.type);
    if (list.empty()) return WhenNotNull({x}, False());
    return InList(x, list);
  }
  const std::string f = Any(a);
  std::string s = "CASE";
  for (const auto& [kind, type] :
       {std::pair{Kind::kNumber, Type::kNumber}, std::pair{Kind::kString, Type::kString},
        std::pair{Kind::kBool, Type::kBool}}) {
    const std::string list = items(type);
    if (!list.empty())
      s += fmt::format(" WHEN {} THEN {} IN ({})", KindIs(f, kind), Convert(f, type), list);
  }
  return s + " WHEN " + Present(f) + " THEN " + False() + " END";
}

}  // namespace logtide
