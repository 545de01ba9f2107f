// Expressions: the parser, from text to the flat list of nodes (node.h), with 1-based error
// positions. Field paths and string literals are read by json/'s one grammar and decoder.
#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iterator>

#include "expr/expr.h"
#include "expr/node.h"
#include "json/field_path.h"
#include "json/json_text.h"

namespace logtide {

using expr_internal::AsDouble;
using expr_internal::FnInfo;
using expr_internal::IsKeyword;
using expr_internal::kFnList;
using expr_internal::kFns;

std::vector<std::string_view> SplitTopLevel(std::string_view text) {
  std::vector<std::string_view> pieces;
  int depth = 0;
  bool in_string = false;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '(' || c == '[') {
      ++depth;
    } else if (c == ')' || c == ']') {
      --depth;
    } else if (c == ',' && depth <= 0) {
      pieces.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  pieces.push_back(text.substr(start));
  return pieces;
}

class Expr::Parser {
 public:
  // Nesting (parentheses, calls, not, unary minus) is bounded, so that a hostile expression
  // cannot exhaust the stack, here or in Eval.
  static constexpr int kMaxDepth = 200;

  Parser(std::string_view text, Expr* e) : s_(text), e_(e) {}

  Status Run() {
    int root;
    if (Status st = Or(&root); !st.ok()) return st;
    Skip();
    if (pos_ < s_.size() && s_[pos_] == '=') return Error("compare with ==, not =");
    if (pos_ < s_.size()) return Error(fmt::format("unexpected \"{}\"", Lookahead()));
    e_->root_ = root;
    return Status::Ok();
  }

 private:
  Status Error(const std::string& what) const {
    return Status::InvalidArgument(fmt::format("position {}: {}", pos_ + 1, what));
  }
  void Skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n')) ++pos_;
  }
  // The next token's text, for messages.
  std::string_view Lookahead() const {
    if (pos_ >= s_.size()) return "end";
    size_t end = pos_ + 1;
    if (IsIdentifierChar(s_[pos_])) {
      while (end < s_.size() && IsIdentifierChar(s_[end])) ++end;
    }
    return s_.substr(pos_, end - pos_);
  }
  bool Eat(std::string_view tok) {
    Skip();
    if (s_.substr(pos_, tok.size()) != tok) return false;
    // A word must end there: "in" is not the start of "index".
    if (IsIdentifierChar(tok.back()) && pos_ + tok.size() < s_.size() &&
        IsIdentifierChar(s_[pos_ + tok.size()]))
      return false;
    pos_ += tok.size();
    return true;
  }
  int Add(Node n) {
    e_->nodes_.push_back(std::move(n));
    return static_cast<int>(e_->nodes_.size()) - 1;
  }
  int Binary(Op op, int a, int b) {
    Node n{op};
    n.args = {a, b};
    return Add(std::move(n));
  }

  struct Deeper {
    explicit Deeper(int* d) : d_(d) { ++*d_; }
    ~Deeper() { --*d_; }
    int* d_;
  };

  Status Or(int* out) {
    if (Status st = And(out); !st.ok()) return st;
    while (Eat("or")) {
      int b;
      if (Status st = And(&b); !st.ok()) return st;
      *out = Binary(Op::kOr, *out, b);
    }
    return Status::Ok();
  }
  Status And(int* out) {
    if (Status st = Not(out); !st.ok()) return st;
    while (Eat("and")) {
      int b;
      if (Status st = Not(&b); !st.ok()) return st;
      *out = Binary(Op::kAnd, *out, b);
    }
    return Status::Ok();
  }
  Status Not(int* out) {
    if (Eat("not")) {
      Deeper deeper(&depth_);
      if (depth_ > kMaxDepth) return Error(fmt::format("nested more than {} deep", kMaxDepth));
      int a;
      if (Status st = Not(&a); !st.ok()) return st;
      Node n{Op::kNot};
      n.args = {a};
      *out = Add(std::move(n));
      return Status::Ok();
    }
    return Compare(out);
  }
  Status Compare(int* out) {
    if (Status st = Concat(out); !st.ok()) return st;
    static constexpr std::pair<std::string_view, Op> kOps[] = {
        {"==", Op::kEq}, {"!=", Op::kNe}, {"<=", Op::kLe},
        {">=", Op::kGe}, {"<", Op::kLt},  {">", Op::kGt},
    };
    for (const auto& [tok, op] : kOps) {
      if (Eat(tok)) {
        int b;
        if (Status st = Concat(&b); !st.ok()) return st;
        *out = Binary(op, *out, b);
        Skip();
        if (pos_ < s_.size() && (s_[pos_] == '=' || s_[pos_] == '<' || s_[pos_] == '>' ||
                                 s_.substr(pos_, 2) == "!=")) {
          return Error("comparisons do not chain: write a < b and b < c");
        }
        return Status::Ok();
      }
    }
    if (Eat("in")) {
      Node n{Op::kIn};
      n.args = {*out};
      if (!Eat("[")) return Error("expected '[' after in, as in status in [500, 503]");
      if (!Eat("]")) {
        do {
          Skip();
          const size_t at = pos_;
          int item;
          if (Status st = Unary(&item); !st.ok()) return st;
          if (e_->nodes_[item].op != Op::kLiteral) {
            pos_ = at;
            return Error("the list after in holds literals only (numbers, strings, true, "
                         "false, null)");
          }
          n.list.push_back(e_->nodes_[item].literal);
          n.list_text.push_back(e_->nodes_[item].text);
        } while (Eat(","));
        if (!Eat("]")) return Error("expected ',' or ']' in the list");
      }
      *out = Add(std::move(n));
    }
    return Status::Ok();
  }
  // a || b || ...: SQL's string concatenation, the same node as concat(a, b, ...), so it
  // types, nulls and prints as concat does. Looser than + and -, tighter than comparisons, as
  // in PostgreSQL and DuckDB.
  Status Concat(int* out) {
    if (Status st = Sum(out); !st.ok()) return st;
    if (!Eat("||")) return Status::Ok();
    Node n{Op::kConcat};
    n.args = {*out};
    do {
      int b;
      if (Status st = Sum(&b); !st.ok()) return st;
      n.args.push_back(b);
    } while (Eat("||"));
    *out = Add(std::move(n));
    return Status::Ok();
  }
  Status Sum(int* out) {
    if (Status st = Product(out); !st.ok()) return st;
    while (true) {
      Op op;
      if (Eat("+")) {
        op = Op::kAdd;
      } else if (Eat("-")) {
        op = Op::kSub;
      } else {
        return Status::Ok();
      }
      int b;
      if (Status st = Product(&b); !st.ok()) return st;
      *out = Binary(op, *out, b);
    }
  }
  Status Product(int* out) {
    if (Status st = Unary(out); !st.ok()) return st;
    while (true) {
      Op op;
      if (Eat("*")) {
        op = Op::kMul;
      } else if (Eat("/")) {
        op = Op::kDiv;
      } else if (Eat("%")) {
        op = Op::kMod;
      } else {
        return Status::Ok();
      }
      int b;
      if (Status st = Unary(&b); !st.ok()) return st;
      *out = Binary(op, *out, b);
    }
  }
  Status Unary(int* out) {
    if (Eat("-")) {
      Deeper deeper(&depth_);
      if (depth_ > kMaxDepth) return Error(fmt::format("nested more than {} deep", kMaxDepth));
      int a;
      if (Status st = Unary(&a); !st.ok()) return st;
      // A negative literal stays a literal (for lists: status in [-1, 2]).
      Node& an = e_->nodes_[a];
      if (an.op == Op::kLiteral && an.literal.is_number()) {
        an.literal = an.literal.is_int && an.literal.i != INT64_MIN
                         ? ValueRef::Int(-an.literal.i)
                         : ValueRef::Number(-AsDouble(an.literal));
        *out = a;
        return Status::Ok();
      }
      Node n{Op::kNeg};
      n.args = {a};
      *out = Add(std::move(n));
      return Status::Ok();
    }
    return Primary(out);
  }

  // A keyword of CASE, in lower or upper case as SQL writes it (case, CASE).
  bool EatWord(std::string_view lower, std::string_view upper) { return Eat(lower) || Eat(upper); }

  // CASE WHEN c1 THEN v1 [WHEN c2 THEN v2 ...] [ELSE e] END, after its "case": the same nodes
  // as if(c1, v1, if(c2, v2, e)) (e null when there is no ELSE), so it types, nulls and
  // prints as if does: the first arm whose condition is true, a condition that is null or
  // false passing on, one that is not a boolean making the result null.
  Status Case(int* out) {
    Deeper deeper(&depth_);
    if (depth_ > kMaxDepth) return Error(fmt::format("nested more than {} deep", kMaxDepth));
    std::vector<std::pair<int, int>> arms;
    while (EatWord("when", "WHEN")) {
      int c, v;
      Skip();
      if (Eat("then") || Eat("THEN")) {
        pos_ -= 4;
        return Error("expected a condition after when");
      }
      if (Status st = Or(&c); !st.ok()) return st;
      if (!EatWord("then", "THEN"))
        return Error("expected then after the condition, as in case when x > 1 then \"big\" end");
      if (Status st = Or(&v); !st.ok()) return st;
      arms.emplace_back(c, v);
    }
    if (arms.empty()) {
      return Error(
          "case takes conditions: case when status >= 500 then \"error\" else \"ok\" "
          "end (the form case x when 1 is not supported: write case when x == 1)");
    }
    int rest;
    if (EatWord("else", "ELSE")) {
      if (Status st = Or(&rest); !st.ok()) return st;
    } else {
      rest = Add(Node{Op::kLiteral});  // a null literal
    }
    if (!EatWord("end", "END")) return Error("expected when, else or end in case ... end");
    for (size_t i = arms.size(); i-- > 0;) {
      Node n{Op::kIf};
      n.args = {arms[i].first, arms[i].second, rest};
      rest = Add(std::move(n));
    }
    *out = rest;
    return Status::Ok();
  }

  // A string literal at pos_ (its opening quote): a JSON string (json/json_text.h).
  Status String(std::string* out) {
    size_t end = 0, at = 0;
    if (Status st = DecodeJsonString(s_.substr(pos_), out, &end, &at); !st.ok()) {
      pos_ += at;
      return Error(st.message());
    }
    pos_ += end;
    return Status::Ok();
  }

  Status Number(int* out) {
    const size_t start = pos_;
    while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) ||
                                s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E' ||
                                ((s_[pos_] == '+' || s_[pos_] == '-') &&
                                 (s_[pos_ - 1] == 'e' || s_[pos_ - 1] == 'E'))))
      ++pos_;
    const std::string_view t = s_.substr(start, pos_ - start);
    Node n{Op::kLiteral};
    int64_t i;
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), i);
    if (ec == std::errc() && end == t.data() + t.size()) {
      n.literal = ValueRef::Int(i);
    } else {
      std::string copy(t);
      char* stop = nullptr;
      const double d = std::strtod(copy.c_str(), &stop);
      if (stop != copy.c_str() + copy.size() || !std::isfinite(d)) {
        pos_ = start;
        return Error(fmt::format("\"{}\" is not a number", t));
      }
      n.literal = ValueRef::Number(d);
    }
    *out = Add(std::move(n));
    return Status::Ok();
  }

  // A path: .a.b, ."log.level", .["x"], .tags[0], .tags[-1], or a bare a.b, in the grammar
  // and with the messages of every field path (json/field_path.h). At its '.' or first key.
  Status Path(int* out) {
    FieldPath path;
    size_t end = 0, at = 0;
    if (Status st = ParseExprFieldPath(s_.substr(pos_), &path, &end, &at); !st.ok()) {
      pos_ += at;
      return Error(st.message());
    }
    pos_ += end;
    const std::string text = FieldPathText(path);
    Node n{Op::kField};
    for (size_t i = 0; i < e_->paths_.size() && n.index < 0; ++i) {
      if (e_->paths_[i] == text) n.index = static_cast<int>(i);
    }
    if (n.index < 0) {
      n.index = static_cast<int>(e_->paths_.size());
      e_->paths_.push_back(text);
    }
    *out = Add(std::move(n));
    return Status::Ok();
  }

  // Compiles the string literal `pattern_node` (an argument of `fn` at `arg_at`) once, for
  // node *n: its regex, pattern and `groups` submatches.
  Status Regex(std::string_view fn, int pattern_node, size_t arg_at, int groups, Node* n) {
    const Node& p = e_->nodes_[pattern_node];
    if (p.op != Op::kLiteral || p.literal.type != ValueType::kString) {
      pos_ = arg_at;
      return Error(fmt::format("{} takes its pattern as a string literal, as in {}(.path, "
                               "\"^/api/\"{})",
                               fn, fn, fn == "regexp_replace" ? ", \"\"" : ""));
    }
    auto re = std::make_unique<re2::RE2>(p.text, re2::RE2::Quiet);
    if (!re->ok()) {
      pos_ = arg_at;
      std::string quoted;
      AppendJsonString(p.text, &quoted);
      return Error(fmt::format("invalid regular expression {}: {} (RE2 syntax: "
                               "https://github.com/google/re2/wiki/Syntax)",
                               quoted, re->error()));
    }
    n->index = static_cast<int>(e_->regexes_.size());
    n->pattern = p.text;
    n->groups.resize(static_cast<size_t>(groups));
    e_->regexes_.push_back(std::move(re));
    return Status::Ok();
  }

  // The integer literal argument `arg` of a call at `arg_at`, in *out; `what` names it.
  Status IntLiteral(int arg, size_t arg_at, std::string_view what, int64_t* out) {
    const Node& p = e_->nodes_[arg];
    if (p.op != Op::kLiteral || !p.literal.is_number() || !p.literal.is_int) {
      pos_ = arg_at;
      return Error(fmt::format("{} is an integer literal", what));
    }
    *out = p.literal.i;
    return Status::Ok();
  }

  // Checks the arguments that must be literals, and compiles patterns once.
  Status CheckArgs(std::string_view name, const std::vector<size_t>& at, Node* n) {
    const std::vector<int>& a = n->args;
    switch (n->op) {
      case Op::kExists:
        if (e_->nodes_[a[0]].op != Op::kField) {
          pos_ = at[0];
          return Error("exists takes a field path, as in exists(.user)");
        }
        return Status::Ok();
      case Op::kMatches:
        if (Status st = Regex(name, a[1], at[1], 0, n); !st.ok()) return st;
        n->text = n->pattern;
        return Status::Ok();
      case Op::kRegexpReplace: {
        const Node& r = e_->nodes_[a[2]];
        if (r.op != Op::kLiteral || r.literal.type != ValueType::kString) {
          pos_ = at[2];
          return Error("regexp_replace takes its replacement as a string literal, as in "
                       "regexp_replace(.path, \"[0-9]+\", \":id\")");
        }
        if (Status st = Regex(name, a[1], at[1], 0, n); !st.ok()) return st;
        std::string why;
        if (!e_->regexes_.back()->CheckRewriteString(r.text, &why)) {
          pos_ = at[2];
          if (!why.empty() && why.back() == '.') why.pop_back();
          return Error("the replacement of regexp_replace: " + why +
                       " (\\0 is the match, \\1 to \\9 its groups, \\\\ a backslash)");
        }
        n->groups.resize(1 + static_cast<size_t>(re2::RE2::MaxSubmatch(r.text)));
        return Status::Ok();
      }
      case Op::kRegexpExtract: {
        int64_t group = 0;
        if (a.size() > 2) {
          if (Status st = IntLiteral(a[2], at[2], "the group of regexp_extract", &group);
              !st.ok())
            return st;
        }
        if (Status st = Regex(name, a[1], at[1], 0, n); !st.ok()) return st;
        const int groups = e_->regexes_.back()->NumberOfCapturingGroups();
        if (group < 0 || group > groups) {
          pos_ = at.size() > 2 ? at[2] : at[1];
          return Error(fmt::format("regexp_extract: group {} of a pattern with {} group{} (0 is "
                                   "the whole match)",
                                   group, groups, groups == 1 ? "" : "s"));
        }
        n->groups.resize(static_cast<size_t>(group) + 1);
        n->literal = ValueRef::Int(group);
        return Status::Ok();
      }
      case Op::kRound:
        if (a.size() > 1) {
          int64_t digits = 0;
          if (Status st = IntLiteral(a[1], at[1], "the digits of round", &digits); !st.ok())
            return st;
        }
        return Status::Ok();
      case Op::kSplitPart: {
        int64_t field = 0;
        if (Status st = IntLiteral(a[2], at[2], "the field number of split_part", &field);
            !st.ok())
          return st;
        if (field == 0) {
          pos_ = at[2];
          return Error("split_part counts fields from 1, or from -1 for the last: not 0");
        }
        return Status::Ok();
      }
      default:
        return Status::Ok();
    }
  }

  Status Call(std::string_view name, size_t at, int* out) {
    int fn = -1;
    for (size_t i = 0; i < std::size(kFns); ++i) {
      if (kFns[i].name == name) fn = static_cast<int>(i);
    }
    if (fn < 0) {
      pos_ = at;
      return Error(fmt::format("unknown function \"{}\" (functions: {})", name, kFnList));
    }
    Node n{static_cast<Op>(static_cast<int>(Op::kExists) + fn)};
    std::vector<size_t> arg_at;
    if (!Eat(")")) {
      do {
        Skip();
        arg_at.push_back(pos_);
        int a;
        if (Status st = Or(&a); !st.ok()) return st;
        n.args.push_back(a);
      } while (Eat(","));
      if (!Eat(")")) return Error("expected ',' or ')'");
    }
    const FnInfo& info = kFns[fn];
    if (static_cast<int>(n.args.size()) < info.min_args ||
        static_cast<int>(n.args.size()) > info.max_args) {
      pos_ = at;
      return Error(info.max_args == expr_internal::kAnyArgs
                       ? fmt::format("{} takes at least {} argument{}", name, info.min_args,
                                     info.min_args == 1 ? "" : "s")
                   : info.min_args == info.max_args
                       ? fmt::format("{} takes {} argument{}", name, info.min_args,
                                     info.min_args == 1 ? "" : "s")
                       : fmt::format("{} takes {} or {} arguments", name, info.min_args,
                                     info.max_args));
    }
    if (Status st = CheckArgs(name, arg_at, &n); !st.ok()) return st;
    *out = Add(std::move(n));
    return Status::Ok();
  }

  Status Primary(int* out) {
    Skip();
    if (pos_ >= s_.size()) return Error("expected an operand");
    const char c = s_[pos_];
    if (c == '(') {
      Deeper deeper(&depth_);
      if (depth_ > kMaxDepth) return Error(fmt::format("nested more than {} deep", kMaxDepth));
      ++pos_;
      if (Status st = Or(out); !st.ok()) return st;
      if (!Eat(")")) return Error("expected ')'");
      return Status::Ok();
    }
    if (c == '"') {
      Node n{Op::kLiteral};
      if (Status st = String(&n.text); !st.ok()) return st;
      n.literal.type = ValueType::kString;
      *out = Add(std::move(n));
      return Status::Ok();
    }
    if (std::isdigit(static_cast<unsigned char>(c))) return Number(out);
    if (c == '.') {
      if (pos_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_ + 1])))
        return Number(out);
      return Path(out);
    }
    if (IsIdentifierStart(c)) {
      const size_t start = pos_;
      size_t end = pos_;
      while (end < s_.size() && IsIdentifierChar(s_[end])) ++end;
      const std::string_view word = s_.substr(start, end - start);
      if (word == "true" || word == "false" || word == "null") {
        pos_ = end;
        Node n{Op::kLiteral};
        n.literal = word == "null" ? ValueRef::Null() : ValueRef::Bool(word == "true");
        *out = Add(std::move(n));
        return Status::Ok();
      }
      if (IsKeyword(word)) return Error("expected an operand");
      size_t after = end;
      while (after < s_.size() && s_[after] == ' ') ++after;
      // "case" starts a CASE when a word follows it that is not an operator (and, or, in):
      // a field named case stays a field (case == 1).
      size_t word_after = end;
      while (word_after < s_.size() &&
             (s_[word_after] == ' ' || s_[word_after] == '\t' || s_[word_after] == '\n'))
        ++word_after;
      if ((word == "case" || word == "CASE") && word_after > end && word_after < s_.size() &&
          IsIdentifierStart(s_[word_after])) {
        size_t next_end = word_after;
        while (next_end < s_.size() && IsIdentifierChar(s_[next_end])) ++next_end;
        const std::string_view next = s_.substr(word_after, next_end - word_after);
        static constexpr std::string_view kNotCase[] = {"and",  "or",   "in",  "then", "THEN",
                                                        "else", "ELSE", "end", "END"};
        if (std::find(std::begin(kNotCase), std::end(kNotCase), next) == std::end(kNotCase)) {
          pos_ = end;
          return Case(out);
        }
      }
      if (after < s_.size() && s_[after] == '(') {
        Deeper deeper(&depth_);
        if (depth_ > kMaxDepth) return Error(fmt::format("nested more than {} deep", kMaxDepth));
        pos_ = after + 1;
        return Call(word, start, out);
      }
      return Path(out);
    }
    return Error("expected an operand");
  }

  std::string_view s_;
  size_t pos_ = 0;
  int depth_ = 0;
  Expr* e_;
};

Expr::Expr() = default;
Expr::~Expr() = default;
Expr::Expr(Expr&&) noexcept = default;
Expr& Expr::operator=(Expr&&) noexcept = default;

Status Expr::Parse(std::string_view text, Expr* out) {
  // JSON text is UTF-8: a key or string that is not could never match, and would not survive
  // the canonical text.
  if (const size_t bad = FindInvalidUtf8(text); bad != std::string_view::npos) {
    return Status::InvalidArgument(fmt::format("position {}: not valid UTF-8", bad + 1));
  }
  Expr e;
  Parser p(text, &e);
  if (Status st = p.Run(); !st.ok()) return st;
  // Eval and Canonical recurse down the tree: a long chain (1 + 1 + ... + 1) is as deep as
  // nesting. Children come before their parents, so depths add up in one pass.
  std::vector<int> depth(e.nodes_.size(), 1);
  for (size_t i = 0; i < e.nodes_.size(); ++i) {
    for (int c : e.nodes_[i].args) depth[i] = std::max(depth[i], depth[c] + 1);
  }
  if (depth[e.root_] > 4 * Parser::kMaxDepth) {
    return Status::InvalidArgument(fmt::format(
        "the expression is {} operations deep, more than {}: split it up", depth[e.root_],
        4 * Parser::kMaxDepth));
  }
  // Literal strings point at their node's bytes, now that no node moves any more.
  for (Node& n : e.nodes_) {
    if (n.op == Op::kLiteral && n.literal.type == ValueType::kString) n.literal.s = n.text;
    for (size_t i = 0; i < n.list.size(); ++i) {
      if (n.list[i].type == ValueType::kString) n.list[i].s = n.list_text[i];
    }
  }
  e.slots_.resize(e.paths_.size());
  for (size_t i = 0; i < e.slots_.size(); ++i) e.slots_[i] = static_cast<int>(i);
  const Node& root = e.nodes_[e.root_];
  if (root.op >= Op::kEq && root.op <= Op::kGe) {
    const Node& a = e.nodes_[root.args[0]];
    const Node& b = e.nodes_[root.args[1]];
    const auto is_number = [](const Node& n) {
      return n.op == Op::kLiteral && n.literal.type == ValueType::kNumber;
    };
    int op = static_cast<int>(root.op) - static_cast<int>(Op::kEq);
    if (a.op == Op::kField && is_number(b)) {
      e.compare_field_ = a.index;
      e.compare_number_ = b.literal;
    } else if (b.op == Op::kField && is_number(a)) {
      static constexpr int kMirror[] = {0, 1, 4, 5, 2, 3};  // 5 < x is x > 5
      e.compare_field_ = b.index;
      e.compare_number_ = a.literal;
      op = kMirror[op];
    }
    e.compare_op_ = op;
  }
  *out = std::move(e);
  return Status::Ok();
}

}  // namespace logtide
