// Fuzz target: the query's spec parsers: --window (window/window_spec.h), --agg
// (agg/agg_spec.h) and field paths (NormalizeFieldPath, FieldExtractor::AddPath).
//
// Input: text, tried whole as a window spec, an aggregate list and a field path; for --by, its
// comma-separated pieces as paths registered together. Checked:
//  - a window spec accepted keeps the rules its parser states (positive, at most 100 years,
//    slide <= size, at most kMaxWindowsPerEvent windows an event; the pane divides size and
//    slide) and its ToString() parses back to the same spec;
//  - each aggregate accepted, written back as [NAME=]FN(FIELD), parses to the same aggregate;
//  - a path normalizes to a fixed point (spelled as jq does, with a leading '.') that the
//    extractor registers; paths registered together
//    get one slot each, the same slot for the same path, and Finish() refuses exactly the sets
//    where one path is a prefix of another or a name holds a quote or a backslash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "agg/agg_spec.h"
#include "expr/expr.h"
#include "fuzz/check.h"
#include "json/extractor.h"
#include "json/field_path.h"
#include "json/json_text.h"
#include "window/window_spec.h"

namespace logtide {
namespace {

void CheckWindow(std::string_view text) {
  WindowSpec w;
  if (!ParseWindowSpec(text, &w).ok()) return;
  const std::string t(text);
  if (w.is_session()) {
    FUZZ_CHECK(w.gap > 0 && w.gap <= kMaxWindowSpan, "%s: gap %lld", t.c_str(),
               static_cast<long long>(w.gap));
  } else {
    FUZZ_CHECK(w.size > 0 && w.size <= kMaxWindowSpan && w.slide > 0 && w.slide <= w.size,
               "%s: size %lld slide %lld", t.c_str(), static_cast<long long>(w.size),
               static_cast<long long>(w.slide));
    FUZZ_CHECK(w.kind != WindowSpec::Kind::kTumbling || w.slide == w.size, "%s", t.c_str());
    FUZZ_CHECK((w.size - 1) / w.slide + 1 <= kMaxWindowsPerEvent, "%s: too many windows",
               t.c_str());
    FUZZ_CHECK(w.size % w.pane() == 0 && w.slide % w.pane() == 0, "%s: pane %lld", t.c_str(),
               static_cast<long long>(w.pane()));
  }
  const std::string again = w.ToString();
  WindowSpec w2;
  FUZZ_CHECK(ParseWindowSpec(again, &w2).ok(), "%s -> %s does not parse", t.c_str(), again.c_str());
  FUZZ_CHECK(w2.kind == w.kind && w2.size == w.size && w2.slide == w.slide && w2.gap == w.gap,
             "%s -> %s is another window", t.c_str(), again.c_str());
  FUZZ_CHECK(w2.ToString() == again, "%s: ToString is not stable", t.c_str());
}

void CheckAggs(std::string_view text) {
  std::vector<AggSpec> specs;
  if (!ParseAggList(text, &specs).ok()) return;
  FUZZ_CHECK(!specs.empty(), "an aggregate list parsed to nothing");
  for (const AggSpec& a : specs) {
    FUZZ_CHECK(!a.name.empty(), "%s: empty name", a.text.c_str());
    const bool counts_events = a.kind == AggKind::kCount;
    FUZZ_CHECK(counts_events == a.field.empty(), "%s: field \"%s\" for kind %d", a.text.c_str(),
               a.field.c_str(), static_cast<int>(a.kind));
    // The canonical text (NAME=FN(FIELD[,PARAM])) parses back to the same aggregate, unless the
    // field holds a '=' that the name's '=' hides.
    const std::string canonical = CanonicalAggText(a);
    if (a.field.find('=') != std::string::npos) continue;
    AggSpec b;
    const Status s = ParseAggSpec(canonical, &b);
    FUZZ_CHECK(s.ok(), "%s -> %s does not parse: %s", a.text.c_str(), canonical.c_str(),
               s.message().c_str());
    FUZZ_CHECK(b.kind == a.kind && b.field == a.field && b.name == a.name && b.q == a.q &&
                   b.k == a.k,
               "%s -> %s is another aggregate", a.text.c_str(), canonical.c_str());
    if (!a.field.empty()) {
      std::string normal;
      FUZZ_CHECK(NormalizeFieldPath("--agg", a.field, &normal).ok() && normal == a.field,
                 "%s: the field \"%s\" is not normalized", a.text.c_str(), a.field.c_str());
    }
  }
}

void CheckPaths(std::string_view text) {
  std::vector<std::string> paths;
  bool unaddressable = false;  // a key holding a quote or a backslash
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    std::string normal;
    if (NormalizeFieldPath("--by", text.substr(pos, comma - pos), &normal).ok()) {
      // A fixed point, written as jq writes it and as it is (a key that starts with '$' is
      // quoted there: '$x' alone is refused as a shell habit).
      std::string twice;
      FUZZ_CHECK(NormalizeFieldPath("--by", "." + normal, &twice).ok() && twice == normal,
                 "\"%s\" normalizes to \"%s\", and its jq spelling to \"%s\"",
                 std::string(text.substr(pos, comma - pos)).c_str(), normal.c_str(), twice.c_str());
      FUZZ_CHECK(NormalizeFieldPath("--by", normal, &twice).ok() && twice == normal,
                 "\"%s\" normalizes to \"%s\", then to \"%s\"",
                 std::string(text.substr(pos, comma - pos)).c_str(), normal.c_str(), twice.c_str());
      // The canonical text of its segments (json/field_path.h), and keys named by it hold no
      // '.' but inside quotes.
      FieldPath segments;
      size_t at;
      FUZZ_CHECK(ParseFieldPath(normal, &segments, &at).ok() && FieldPathText(segments) == normal,
                 "\"%s\" is not a path in canonical text", normal.c_str());
      for (const PathSegment& seg : segments) {
        FUZZ_CHECK(seg.is_index || !seg.key.empty(), "\"%s\": an empty key", normal.c_str());
        unaddressable = unaddressable || seg.key.find_first_of("\"\\") != std::string::npos;
      }
      paths.push_back(normal);
    }
    pos = comma + 1;
    if (paths.size() == 16) break;
  }
  FieldExtractor ex;
  std::vector<int> slots;
  for (const std::string& p : paths) {
    int slot = -1;
    const Status s = ex.AddPath(p, &slot);
    FUZZ_CHECK(s.ok(), "normalized path \"%s\" refused: %s", p.c_str(), s.message().c_str());
    FUZZ_CHECK(slot >= 0 && slot < ex.num_slots() && ex.path(slot) == p, "\"%s\": slot %d",
               p.c_str(), slot);
    slots.push_back(slot);
  }
  // A path may be a prefix of another (a field and its parent are both usable).
  for (size_t i = 0; i < paths.size(); ++i) {
    for (size_t j = 0; j < paths.size(); ++j) {
      FUZZ_CHECK((paths[i] == paths[j]) == (slots[i] == slots[j]), "\"%s\" and \"%s\": slots",
                 paths[i].c_str(), paths[j].c_str());
    }
  }
  const Status fin = ex.Finish();
  FUZZ_CHECK(fin.ok() == !unaddressable,
             "Finish says %s for %zu paths; a quote or backslash: %d",
             fin.ok() ? "ok" : fin.message().c_str(), paths.size(), unaddressable);
}

// Returns a result as text: a string's bytes, or the JSON of another value.
std::string ResultText(const ValueRef& r) {
  std::string out;
  if (r.type == ValueType::kString) return "s" + std::string(r.s);
  AppendJsonValue(r, &out);
  return out;
}

// An expression that parses has a canonical text that parses to the same canonical text and
// the same paths; evaluating it over nulls and over a few values never fails, and gives the
// same result again after other events (string results live in reused buffers).
void CheckExpr(std::string_view text) {
  Expr e;
  if (!Expr::Parse(text, &e).ok()) return;
  const std::string canonical = e.Canonical();
  Expr again;
  const Status s = Expr::Parse(canonical, &again);
  FUZZ_CHECK(s.ok(), "canonical text \"%s\" does not parse: %s", canonical.c_str(),
             s.message().c_str());
  FUZZ_CHECK(again.Canonical() == canonical, "\"%s\" -> \"%s\" is not stable",
             canonical.c_str(), again.Canonical().c_str());
  FUZZ_CHECK(again.paths() == e.paths(), "\"%s\": other paths", canonical.c_str());
  for (const ValueRef v : {ValueRef::Null(), ValueRef::Int(-3), ValueRef::Number(2.5),
                           ValueRef::String("aB"), ValueRef::String("/api/v2/users/123"),
                           ValueRef::String(""), ValueRef::Bool(true), ValueRef::Raw("[1]")}) {
    const std::vector<ValueRef> values(e.paths().size(), v);
    const ValueRef r = e.Eval(values.data());
    FUZZ_CHECK(r.type <= ValueType::kRaw, "\"%s\": a result of no type", canonical.c_str());
    const std::string first = ResultText(r);
    const std::vector<ValueRef> other(e.paths().size(), ValueRef::String("/x/9/y"));
    e.Eval(other.data());
    FUZZ_CHECK(ResultText(e.Eval(values.data())) == first, "\"%s\": another result the second time",
               canonical.c_str());
  }
}

}  // namespace
}  // namespace logtide

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace logtide;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckWindow(text);
  CheckAggs(text);
  CheckPaths(text);
  CheckExpr(text);
  return 0;
}
