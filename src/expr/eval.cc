// Expressions: evaluation over one event's values, without allocating (string results live
// in their node's buffer, reused from event to event).
#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "expr/expr.h"
#include "expr/node.h"

namespace logtide {
namespace {

using expr_internal::AsDouble;

bool IsBool(const ValueRef& v) { return v.type == ValueType::kTrue || v.type == ValueType::kFalse; }

// Same kind for comparing: numbers, strings, booleans, or objects/arrays.
bool SameKind(const ValueRef& a, const ValueRef& b) {
  return a.type == b.type || (IsBool(a) && IsBool(b));
}

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// The byte offset of code point `cp` in s (s.size() when past the end).
size_t ByteOfCodePoint(std::string_view s, size_t cp) {
  size_t i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (cp == 0) return i;
      --cp;
    }
  }
  return s.size();
}

// The length of the UTF-8 sequence that starts with byte `c` (1 for a byte that starts none).
size_t Utf8Length(unsigned char c) {
  return c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
}

// Returns x rounded to `digits` decimal places (digits < 0: to tens, hundreds, ...), halves away
// from zero, as DuckDB's round(DOUBLE, INTEGER) computes it.
double RoundDigits(double x, int64_t digits) {
  if (digits >= 0) {
    const double m = std::pow(10.0, static_cast<double>(digits));
    const double r = std::round(x * m) / m;
    return std::isfinite(r) ? r : x;
  }
  const double m = std::pow(10.0, static_cast<double>(-digits));
  const double r = std::round(x / m) * m;
  return std::isfinite(r) ? r : 0;
}

// a OP b for two non-null values. Different kinds: only != holds.
bool CompareHolds(int op_from_eq, const ValueRef& a, const ValueRef& b) {
  // op_from_eq: 0 ==, 1 !=, 2 <, 3 <=, 4 >, 5 >=
  if (!SameKind(a, b)) return op_from_eq == 1;
  const bool ordered = a.is_number() || a.type == ValueType::kString;
  if (op_from_eq >= 2 && !ordered) return false;  // booleans, objects, arrays: equality only
  const int c = CompareValues(a, b);
  switch (op_from_eq) {
    case 0:
      return c == 0;
    case 1:
      return c != 0;
    case 2:
      return c < 0;
    case 3:
      return c <= 0;
    case 4:
      return c > 0;
    default:
      return c >= 0;
  }
}

}  // namespace

ValueRef Expr::Eval(const ValueRef* values) { return EvalNode(root_, values); }

ValueRef Expr::EvalNode(int idx, const ValueRef* values) {
  Node& n = nodes_[idx];
  switch (n.op) {
    case Op::kField:
      return values[slots_[n.index]];
    case Op::kLiteral:
      return n.literal;
    case Op::kNot: {
      const ValueRef a = EvalNode(n.args[0], values);
      if (a.is_null()) return a;
      if (!IsBool(a)) return Mismatch();
      return ValueRef::Bool(a.type == ValueType::kFalse);
    }
    case Op::kAnd:
    case Op::kOr: {
      // Kleene's logic: for and, false wins over null, null over true; or the other way round.
      const ValueType winner = n.op == Op::kAnd ? ValueType::kFalse : ValueType::kTrue;
      ValueRef a = EvalNode(n.args[0], values);
      if (!a.is_null() && !IsBool(a)) a = Mismatch();
      if (a.type == winner) return a;
      ValueRef b = EvalNode(n.args[1], values);
      if (!b.is_null() && !IsBool(b)) b = Mismatch();
      if (b.type == winner) return b;
      if (a.is_null() || b.is_null()) return ValueRef::Null();
      return a;
    }
    case Op::kEq:
    case Op::kNe:
    case Op::kLt:
    case Op::kLe:
    case Op::kGt:
    case Op::kGe: {
      const ValueRef a = EvalNode(n.args[0], values);
      const ValueRef b = EvalNode(n.args[1], values);
      if (a.is_null() || b.is_null()) return ValueRef::Null();
      // A number against a string literal, or a string against a number literal.
      if (a.is_number() != b.is_number() &&
          (a.type == ValueType::kString || b.type == ValueType::kString) &&
          (nodes_[n.args[0]].op == Op::kLiteral || nodes_[n.args[1]].op == Op::kLiteral))
        ++literal_kind_misses_;
      return ValueRef::Bool(
          CompareHolds(static_cast<int>(n.op) - static_cast<int>(Op::kEq), a, b));
    }
    case Op::kIn: {
      const ValueRef a = EvalNode(n.args[0], values);
      if (a.is_null()) return a;
      for (const ValueRef& item : n.list) {
        if (!item.is_null() && CompareHolds(0, a, item)) return ValueRef::Bool(true);
      }
      return ValueRef::Bool(false);
    }
    case Op::kAdd:
    case Op::kSub:
    case Op::kMul:
    case Op::kDiv:
    case Op::kMod: {
      const ValueRef a = EvalNode(n.args[0], values);
      const ValueRef b = EvalNode(n.args[1], values);
      if (a.is_null() || b.is_null()) return ValueRef::Null();
      if (!a.is_number() || !b.is_number()) return Mismatch();
      if (a.is_int && b.is_int) {
        int64_t r;
        switch (n.op) {
          case Op::kAdd:
            if (!__builtin_add_overflow(a.i, b.i, &r)) return ValueRef::Int(r);
            break;
          case Op::kSub:
            if (!__builtin_sub_overflow(a.i, b.i, &r)) return ValueRef::Int(r);
            break;
          case Op::kMul:
            if (!__builtin_mul_overflow(a.i, b.i, &r)) return ValueRef::Int(r);
            break;
          case Op::kDiv:
            if (b.i == 0) return Mismatch();
            if (b.i == -1) break;  // INT64_MIN / -1: as doubles
            if (a.i % b.i == 0) return ValueRef::Int(a.i / b.i);
            break;
          default:  // kMod: the sign of the dividend, as C, jq and SQL
            if (b.i == 0) return Mismatch();
            return ValueRef::Int(b.i == -1 ? 0 : a.i % b.i);
        }
      }
      const double x = AsDouble(a), y = AsDouble(b);
      double r;
      switch (n.op) {
        case Op::kAdd:
          r = x + y;
          break;
        case Op::kSub:
          r = x - y;
          break;
        case Op::kMul:
          r = x * y;
          break;
        case Op::kDiv:
          if (y == 0) return Mismatch();
          r = x / y;
          break;
        default:
          if (y == 0) return Mismatch();
          r = std::fmod(x, y);
      }
      if (!std::isfinite(r)) return Mismatch();
      return ValueRef::Number(r);
    }
    case Op::kNeg: {
      const ValueRef a = EvalNode(n.args[0], values);
      if (a.is_null()) return a;
      if (!a.is_number()) return Mismatch();
      if (a.is_int && a.i != INT64_MIN) return ValueRef::Int(-a.i);
      return ValueRef::Number(-AsDouble(a));
    }
    case Op::kExists:
      return ValueRef::Bool(!EvalNode(n.args[0], values).is_null());
    case Op::kStartsWith:
    case Op::kEndsWith:
    case Op::kContains:
    case Op::kMatches: {
      const ValueRef a = EvalNode(n.args[0], values);
      const ValueRef b = n.op == Op::kMatches ? ValueRef() : EvalNode(n.args[1], values);
      if (a.is_null() || (n.op != Op::kMatches && b.is_null())) return ValueRef::Null();
      if (a.type != ValueType::kString ||
          (n.op != Op::kMatches && b.type != ValueType::kString))
        return Mismatch();
      switch (n.op) {
        case Op::kStartsWith:
          return ValueRef::Bool(a.s.substr(0, b.s.size()) == b.s);
        case Op::kEndsWith:
          return ValueRef::Bool(a.s.size() >= b.s.size() &&
                                a.s.substr(a.s.size() - b.s.size()) == b.s);
        case Op::kContains:
          return ValueRef::Bool(a.s.find(b.s) != std::string_view::npos);
        default:
          return ValueRef::Bool(
              re2::RE2::PartialMatch(re2::StringPiece(a.s.data(), a.s.size()), *regexes_[n.index]));
      }
    }
    case Op::kFloor:
    case Op::kCeil:
    case Op::kRound:
    case Op::kAbs: {
      const ValueRef a = EvalNode(n.args[0], values);
      if (a.is_null()) return a;
      if (!a.is_number()) return Mismatch();
      if (n.op == Op::kRound && n.args.size() > 1) {
        const int64_t digits = nodes_[n.args[1]].literal.i;  // an integer literal (parse.cc)
        if (a.is_int && digits >= 0) return a;
        return ValueRef::Number(RoundDigits(AsDouble(a), digits));
      }
      if (a.is_int) {
        if (n.op != Op::kAbs || a.i >= 0) return a;
        return a.i == INT64_MIN ? ValueRef::Number(-AsDouble(a)) : ValueRef::Int(-a.i);
      }
      switch (n.op) {
        case Op::kFloor:
          return ValueRef::Number(std::floor(a.d));
        case Op::kCeil:
          return ValueRef::Number(std::ceil(a.d));
        case Op::kRound:
          return ValueRef::Number(std::round(a.d));  // halves away from zero
        default:
          return ValueRef::Number(std::fabs(a.d));
      }
    }
    case Op::kLower:
    case Op::kUpper: {
      const ValueRef a = EvalNode(n.args[0], values);
      if (a.is_null()) return a;
      if (a.type != ValueType::kString) return Mismatch();
      n.text.assign(a.s);
      for (char& c : n.text) {
        if (n.op == Op::kLower && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if (n.op == Op::kUpper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      }
      return ValueRef::String(n.text);
    }
    case Op::kLen: {
      const ValueRef a = EvalNode(n.args[0], values);
      if (a.is_null()) return a;
      if (a.type != ValueType::kString) return Mismatch();
      return ValueRef::Int(static_cast<int64_t>(CodePoints(a.s)));
    }
    case Op::kSubstr: {
      const ValueRef a = EvalNode(n.args[0], values);
      const ValueRef start = EvalNode(n.args[1], values);
      const ValueRef len = n.args.size() > 2 ? EvalNode(n.args[2], values) : ValueRef::Int(-1);
      if (a.is_null() || start.is_null() || len.is_null()) return ValueRef::Null();
      if (a.type != ValueType::kString || !start.is_number() || !start.is_int ||
          !len.is_number() || !len.is_int || (n.args.size() > 2 && len.i < 0))
        return Mismatch();
      const auto count = static_cast<int64_t>(CodePoints(a.s));
      int64_t from = start.i < 0 ? std::max<int64_t>(0, count + start.i) : std::min(start.i, count);
      int64_t to = len.i < 0 ? count : std::min(count, from + std::min(len.i, count));
      const size_t b0 = ByteOfCodePoint(a.s, static_cast<size_t>(from));
      const size_t b1 = ByteOfCodePoint(a.s, static_cast<size_t>(to));
      n.text.assign(a.s.substr(b0, b1 - b0));
      return ValueRef::String(n.text);
    }
    case Op::kRegexpReplace:
    case Op::kRegexpExtract: {
      const ValueRef a = EvalNode(n.args[0], values);
      if (a.is_null()) return a;
      if (a.type != ValueType::kString) return Mismatch();
      const re2::RE2& re = *regexes_[n.index];
      const re2::StringPiece text(a.s.data(), a.s.size());
      re2::StringPiece* groups = n.groups.data();
      const int ngroups = static_cast<int>(n.groups.size());
      if (n.op == Op::kRegexpExtract) {
        if (!re.Match(text, 0, text.size(), re2::RE2::UNANCHORED, groups, ngroups))
          return ValueRef::Null();
        const re2::StringPiece g = groups[ngroups - 1];  // a group that took no part: ""
        return ValueRef::String(std::string_view(g.data() == nullptr ? "" : g.data(), g.size()));
      }
      // Every match, left to right, as RE2::GlobalReplace (and so DuckDB's regexp_replace with
      // 'g') replaces them: an empty match right after a match is skipped. Into the node's
      // buffer, which keeps its capacity from event to event.
      const std::string_view rewrite = nodes_[n.args[2]].literal.s;
      n.text.clear();
      const char* p = text.data();
      const char* const end = p + text.size();
      const char* last_end = nullptr;
      while (p <= end) {
        if (!re.Match(text, static_cast<size_t>(p - text.data()), text.size(),
                      re2::RE2::UNANCHORED, groups, ngroups))
          break;
        if (p < groups[0].data()) n.text.append(p, static_cast<size_t>(groups[0].data() - p));
        if (groups[0].data() == last_end && groups[0].empty()) {
          if (p == end) break;
          const size_t len = std::min<size_t>(Utf8Length(static_cast<unsigned char>(*p)),
                                              static_cast<size_t>(end - p));
          n.text.append(p, len);
          p += len;
          continue;
        }
        re.Rewrite(&n.text, re2::StringPiece(rewrite.data(), rewrite.size()), groups, ngroups);
        p = groups[0].data() + groups[0].size();
        last_end = p;
      }
      if (p < end) n.text.append(p, static_cast<size_t>(end - p));
      return ValueRef::String(n.text);
    }
    case Op::kIf: {
      // The condition as --where takes it: true gives a, false or null b; a value of another
      // type is a mismatch. Only the branch taken is evaluated.
      const ValueRef c = EvalNode(n.args[0], values);
      if (!c.is_null() && !IsBool(c)) return Mismatch();
      return EvalNode(n.args[c.type == ValueType::kTrue ? 1 : 2], values);
    }
    case Op::kCoalesce:
      for (int arg : n.args) {
        const ValueRef a = EvalNode(arg, values);
        if (!a.is_null()) return a;
      }
      return ValueRef::Null();
    case Op::kSplitPart: {
      const ValueRef a = EvalNode(n.args[0], values);
      const ValueRef sep = EvalNode(n.args[1], values);
      if (a.is_null() || sep.is_null()) return ValueRef::Null();
      if (a.type != ValueType::kString || sep.type != ValueType::kString) return Mismatch();
      const int64_t field = nodes_[n.args[2]].literal.i;  // nonzero (parse.cc)
      const std::string_view s = a.s;
      if (sep.s.empty()) return ValueRef::String(field == 1 || field == -1 ? s : "");
      // Fields split left to right; a negative field counts from the end of that list.
      int64_t index = field;
      if (field < 0) {
        int64_t fields = 1;
        for (size_t at = s.find(sep.s); at != std::string_view::npos;
             at = s.find(sep.s, at + sep.s.size()))
          ++fields;
        index = fields + field + 1;
        if (index < 1) return ValueRef::String("");
      }
      size_t from = 0;
      for (int64_t k = 1; k < index; ++k) {
        const size_t at = s.find(sep.s, from);
        if (at == std::string_view::npos) return ValueRef::String("");
        from = at + sep.s.size();
      }
      const size_t to = std::min(s.size(), s.find(sep.s, from));
      return ValueRef::String(s.substr(from, to - from));
    }
    case Op::kConcat: {
      // Strings only, as the other string functions (a number is a mismatch, not its text).
      n.text.clear();
      bool null = false, mismatch = false;
      for (int arg : n.args) {
        const ValueRef a = EvalNode(arg, values);
        if (a.is_null()) {
          null = true;
        } else if (a.type != ValueType::kString) {
          mismatch = true;
        } else {
          n.text.append(a.s);
        }
      }
      if (null) return ValueRef::Null();
      if (mismatch) return Mismatch();
      return ValueRef::String(n.text);
    }
  }
  return ValueRef::Null();
}

}  // namespace logtide
