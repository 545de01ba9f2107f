#include "agg/agg_spec.h"

#include <fmt/format.h>

#include <charconv>
#include <string>

#include "expr/expr.h"
#include "json/field_path.h"
#include "util/quote.h"

namespace logtide {
namespace {

struct Fn {
  std::string_view name;
  AggKind kind;
};
constexpr Fn kFns[] = {
    {"count", AggKind::kCount},
    {"sum", AggKind::kSum},
    {"min", AggKind::kMin},
    {"max", AggKind::kMax},
    {"avg", AggKind::kAvg},
    {"count_distinct", AggKind::kCountDistinct},
    {"first", AggKind::kFirst},
    {"last", AggKind::kLast},
    {"quantile", AggKind::kQuantile},
    {"approx_count_distinct", AggKind::kApproxDistinct},
    {"top_k", AggKind::kTopK},
};
constexpr std::string_view kFnList =
    "count, count(f), sum(f), min(f), max(f), avg(f), count_distinct(f), first(f), last(f), "
    "quantile(f, Q), median(f), p50(f), p90(f), p95(f), p99(f), p999(f), "
    "approx_count_distinct(f), top_k(f, K)";

// Quantile shorthands: the function name and Q's digits after "0." (see QuantileDigits).
struct Shorthand {
  std::string_view name;
  std::string_view digits;
};
constexpr Shorthand kQuantileShorthands[] = {
    {"median", "5"}, {"p50", "5"}, {"p90", "9"}, {"p95", "95"}, {"p99", "99"}, {"p999", "999"},
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Reads Q, written as a decimal from 0 to 1 (0, 1, 0.99, .5, 1.0): *one for 1, otherwise the
// digits after the point without trailing zeros ("99" for 0.99, "" for 0).
bool ParseQuantile(std::string_view text, std::string* digits, bool* one) {
  *one = false;
  digits->clear();
  std::string_view whole = text.substr(0, text.find('.'));
  std::string_view frac =
      whole.size() < text.size() ? text.substr(whole.size() + 1) : std::string_view();
  if (whole.size() == text.size() - 1 && frac.empty()) return false;  // "0."
  if (whole.empty() && frac.empty()) return false;
  if (whole.size() > 1 || (!whole.empty() && whole != "0" && whole != "1")) return false;
  for (char c : frac) {
    if (c < '0' || c > '9') return false;
  }
  while (!frac.empty() && frac.back() == '0') frac.remove_suffix(1);
  if (whole == "1") {
    if (!frac.empty()) return false;
    *one = true;
    return true;
  }
  if (frac.size() > 15) return false;  // beyond a double's digits
  digits->assign(frac);
  return true;
}

// The canonical Q text and the default name's digits: p99, p05, p50, p0, p100.
std::string QuantileText(double q) {
  if (q >= 1) return "1";
  if (q <= 0) return "0";
  // The fewest decimals that read back as q: always a plain decimal, never an exponent.
  for (int digits = 1;; ++digits) {
    std::string text = fmt::format("{:.{}f}", q, digits);
    if (digits >= 17 || std::stod(text) == q) return text;
  }
}

std::string QuantileNameDigits(std::string digits, bool one) {
  if (one) return "100";
  if (digits.empty()) return "0";
  while (digits.size() < 2) digits += '0';
  return digits;
}

}  // namespace

std::string CanonicalAggText(const AggSpec& a) {
  std::string call(AggKindName(a.kind));
  if (!a.field.empty()) {
    call += "(" + a.field;
    if (a.kind == AggKind::kQuantile) call += "," + QuantileText(a.q);
    if (a.kind == AggKind::kTopK) call += fmt::format(",{}", a.k);
    call += ")";
  }
  if (!a.filter.empty()) call += " filter " + a.filter;
  return a.name + "=" + call;
}

std::string_view AggKindName(AggKind kind) {
  if (kind == AggKind::kCountField) return "count";
  for (const Fn& f : kFns) {
    if (f.kind == kind) return f.name;
  }
  return "?";
}

namespace {

// The offset of a top-level " filter " (outside parentheses and strings), or npos.
size_t FindFilter(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (depth == 0 && text.substr(i, 6) == "filter" && i > 0 &&
        (text[i - 1] == ' ' || text[i - 1] == ')') &&
        (i + 6 == text.size() || text[i + 6] == ' ' || text[i + 6] == '(')) {
      return i;
    }
  }
  return std::string_view::npos;
}

}  // namespace

Status ParseAggSpec(std::string_view text, AggSpec* out) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument(
        fmt::format("--agg {}: {} (expected [NAME=]FN, FN one of {})",
                    QuoteForMessage(text, /*backslash_quotes=*/true), why, kFnList));
  };
  AggSpec spec;
  spec.text = std::string(text);
  std::string_view rest = Trim(text);
  if (const size_t f = FindFilter(rest); f != std::string_view::npos) {
    const std::string_view cond = Trim(rest.substr(f + 6));
    rest = Trim(rest.substr(0, f));
    Expr e;
    const Status st = Expr::Parse(cond, &e);
    if (!st.ok()) {
      return Status::InvalidArgument(
          fmt::format("--agg {}: the filter {}: {}", QuoteForMessage(text, /*backslash_quotes=*/true),
                      QuoteForMessage(cond, /*backslash_quotes=*/true), st.message()));
    }
    spec.filter = e.Canonical();
  }
  size_t eq = rest.find('=');
  size_t paren = rest.find('(');
  if (eq != std::string_view::npos && (paren == std::string_view::npos || eq < paren)) {
    spec.name = std::string(Trim(rest.substr(0, eq)));
    if (spec.name.empty()) return bad("empty name before '='");
    rest = Trim(rest.substr(eq + 1));
    paren = rest.find('(');
  }
  std::string_view fn = Trim(rest.substr(0, paren));
  std::string_view param;  // quantile's Q, top_k's K
  std::string q_digits;    // Q's digits after "0.", for the default name
  bool q_one = false;
  for (const Shorthand& sh : kQuantileShorthands) {
    if (fn == sh.name) q_digits = sh.digits;
  }
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
      // The arguments: split at commas outside a quoted key (."x,y" is one field).
      const std::vector<std::string_view> args = SplitTopLevel(inner);
      if (fn == "quantile" || fn == "top_k") {
        if (args.size() < 2) {
          return bad(fn == "quantile" ? "quantile needs a field and Q, as in quantile(latency_ms, 0.99)"
                                      : "top_k needs a field and K, as in top_k(path, 10)");
        }
        param = Trim(args.back());
        inner = Trim(inner.substr(0, static_cast<size_t>(args.back().data() - inner.data()) - 1));
        if (inner.empty()) return bad("empty field inside ()");
      } else if (args.size() > 1) {
        return bad(fmt::format("{} takes one field", fn));
      }
      Status s = NormalizeFieldPath("--agg", inner, &spec.field);
      if (!s.ok()) return bad(s.message());
      // jq's spelling of count(*), count(.*), is count; for others '*' is no field.
      if (spec.field == "*") {
        if (fn != "count") return bad("'*' (every event) is for count(*) only: name a field");
        spec.field.clear();
      }
    }
  }
  const Fn* found = nullptr;
  for (const Fn& f : kFns) {
    if (f.name == fn) found = &f;
  }
  const bool shorthand = !q_digits.empty();
  if (found == nullptr && !shorthand) return bad(fmt::format("unknown function \"{}\"", fn));
  spec.kind = shorthand ? AggKind::kQuantile : found->kind;
  if (spec.kind == AggKind::kQuantile && !shorthand && !spec.field.empty()) {
    if (!ParseQuantile(param, &q_digits, &q_one)) {
      return bad(fmt::format("Q must be a decimal from 0 to 1, such as 0.99, not \"{}\"", param));
    }
  }
  if (spec.kind == AggKind::kQuantile) {
    spec.q = q_one ? 1.0 : std::stod("0." + q_digits + "0");
  }
  if (spec.kind == AggKind::kTopK && !spec.field.empty()) {
    uint32_t k = 0;
    const auto [end, ec] = std::from_chars(param.data(), param.data() + param.size(), k);
    if (ec != std::errc() || end != param.data() + param.size() || k < 1 || k > kMaxTopK) {
      return bad(fmt::format("K must be a whole number from 1 to {}, not \"{}\"", kMaxTopK, param));
    }
    spec.k = k;
  }
  if (spec.kind == AggKind::kCount) {
    if (!spec.field.empty()) spec.kind = AggKind::kCountField;
  } else if (spec.field.empty()) {
    if (spec.kind == AggKind::kQuantile && !shorthand) {
      return bad("quantile needs a field and Q, as in quantile(latency_ms, 0.99)");
    }
    if (spec.kind == AggKind::kTopK) return bad("top_k needs a field and K, as in top_k(path, 10)");
    return bad(fmt::format("{} needs a field, as in {}(bytes)", fn, fn));
  }
  if (spec.name.empty()) {
    const std::string field = FieldPathName(spec.field);  // sum(."a.b") is sum_a.b
    if (spec.kind == AggKind::kQuantile && fn != "median") {
      spec.name = fmt::format("p{}_{}", QuantileNameDigits(q_digits, q_one), field);
    } else {
      spec.name = spec.field.empty() ? std::string(fn) : fmt::format("{}_{}", fn, field);
    }
    if (!spec.filter.empty()) spec.name += "_filtered";
  }
  *out = std::move(spec);
  return Status::Ok();
}

Status ParseAggList(std::string_view text, std::vector<AggSpec>* out) {
  // Unbalanced parentheses leave one piece, which fails to parse.
  for (std::string_view piece : SplitTopLevel(text)) {
    AggSpec spec;
    Status s = ParseAggSpec(piece, &spec);
    if (!s.ok()) return s;
    out->push_back(std::move(spec));
  }
  return Status::Ok();
}

namespace {

// Parses words[from..] into *out (backtracking over where each aggregate ends; failed[i]
// marks a start already found not to parse, so each start is tried once).
bool ParseCanonicalFrom(const std::vector<std::string_view>& words, size_t from,
                        std::vector<AggSpec>* out, std::vector<bool>* failed) {
  if (from == words.size()) return true;
  if ((*failed)[from]) return false;
  std::string text;
  for (size_t end = from; end < words.size(); ++end) {
    if (end > from) text += ' ';
    text.append(words[end]);
    AggSpec spec;
    if (!ParseAggSpec(text, &spec).ok() || CanonicalAggText(spec) != text) continue;
    out->push_back(std::move(spec));
    if (ParseCanonicalFrom(words, end + 1, out, failed)) return true;
    out->pop_back();
  }
  (*failed)[from] = true;
  return false;
}

}  // namespace

Status ParseCanonicalAggList(std::string_view text, std::vector<AggSpec>* out) {
  std::vector<std::string_view> words;
  for (size_t at = 0; at <= text.size();) {
    size_t space = text.find(' ', at);
    if (space == std::string_view::npos) space = text.size();
    words.push_back(text.substr(at, space - at));
    at = space + 1;
  }
  std::vector<AggSpec> specs;
  std::vector<bool> failed(words.size(), false);
  if (text.empty() || !ParseCanonicalFrom(words, 0, &specs, &failed)) {
    return Status::Corruption(
        fmt::format("\"{}\" is not a list of aggregates in canonical form", text));
  }
  for (AggSpec& spec : specs) out->push_back(std::move(spec));
  return Status::Ok();
}

}  // namespace logtide
