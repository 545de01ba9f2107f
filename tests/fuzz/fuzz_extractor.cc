// Fuzz target: the JSON field extractor (json/extractor.h) and the structural index it walks
// (json/structural_index.h).
//
// Input: NDJSON text, split into lines at '\n' (a '\r' before it ends the line too, as in
// tests/json/extractor_diff_test.cc). Checked, for a fixed set of paths (the sample log's fields
// and nested ones):
//  - each line alone: a line the extractor accepts is accepted by simdjson's On-Demand API, with
//    the same value at every path (but for a line with a number whose exponent has 20 digits or
//    more, which On-Demand refuses); a line it refuses that On-Demand accepts is invalid JSON
//    (On-Demand does not look inside values nobody reads);
//  - the lines as one run indexed piece by piece (StructuralIndex::SetRun/Find): every line gives
//    the same status, message and values as alone; and so does an extractor that defers every
//    other path (FieldExtractor::Defer, as --where does), read with Extract then ExtractRest.
// ASan checks that no line is read outside its bytes and the padding the contract promises.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/check.h"
#include "json/extractor.h"
#include "json/ondemand_reference.h"
#include "json/structural_index.h"

namespace logtide {
namespace {

const char* const kPaths[] = {"ts",   "service", "host",   "status", "bytes", "latency_ms",
                              "user", "req.m",   "req.id", "a.b.c",  "arr",   "t\xC3\xA9"};

struct Extractor {
  FieldExtractor ex;
  FieldExtractor lazy;  // every other path deferred
  Reference ref;
  JsonChecker checker;
  StructuralIndex index;
  int n = 0;
  Extractor() {
    for (const char* p : kPaths) {
      int slot = -1;
      // The time field keeps its numbers' text, as the engine asks (exact epoch times).
      FUZZ_CHECK(ex.AddPath(p, &slot, std::string_view(p) == "ts").ok(), "path %s", p);
      ref.Add(p, slot);
      FUZZ_CHECK(lazy.AddPath(p, &slot, std::string_view(p) == "ts").ok(), "path %s", p);
      if (slot % 2 == 1) lazy.Defer(slot);
    }
    FUZZ_CHECK(ex.Finish().ok(), "the paths are refused");
    FUZZ_CHECK(lazy.Finish().ok(), "the paths are refused");
    n = ex.num_slots();
  }
};

// Whether `line` holds an exponent of 20 digits or more: 'e' or 'E', a sign or none, digits.
bool HasLongExponent(std::string_view line) {
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] != 'e' && line[i] != 'E') continue;
    size_t j = i + 1;
    if (j < line.size() && (line[j] == '+' || line[j] == '-')) ++j;
    size_t digits = 0;
    while (j + digits < line.size() && line[j + digits] >= '0' && line[j + digits] <= '9') ++digits;
    if (digits >= 20) return true;
  }
  return false;
}

std::string Quoted(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

}  // namespace
}  // namespace logtide

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace logtide;
  static Extractor* e = new Extractor();
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  // Lines, without their '\n' or "\r\n".
  std::vector<std::pair<size_t, size_t>> lines;  // offset, length
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    const bool last = nl == std::string_view::npos;
    if (last) nl = text.size();
    size_t len = nl - pos;
    if (!last && len > 0 && text[nl - 1] == '\r') --len;
    lines.emplace_back(pos, len);
    pos = nl + 1;
  }

  std::vector<Status> alone_status;
  std::vector<std::string> alone_values;
  for (const auto& [off, len] : lines) {
    const std::string_view line = text.substr(off, len);
    // A copy that ends where the line does, then the padding: ASan sees any read past it.
    std::string padded(line);
    padded.append(FieldExtractor::kPadding, ' ');
    std::vector<ValueRef> got, want(e->n, ValueRef::Null());
    const Status s = e->ex.Extract(padded.data(), line.size(), padded.size(), &got);
    const bool ref_ok = e->ref.Extract(padded, line.size(), &want);
    if (s.ok() && !ref_ok) {
      // On-Demand's get_double refuses an exponent of 20 digits or more (1e000...01), which
      // JSON allows and simdjson's DOM parser and the extractor read: the one line On-Demand
      // may refuse, and then it cannot say what the values are.
      FUZZ_CHECK(HasLongExponent(line), "accepted, On-Demand refuses: %s", Quoted(line).c_str());
    } else if (s.ok()) {
      FUZZ_CHECK(static_cast<int>(got.size()) == e->n, "%zu values", got.size());
      for (int i = 0; i < e->n; ++i) {
        FUZZ_CHECK(Same(got[i], want[i]), "%s: at %s got %s, On-Demand %s", Quoted(line).c_str(),
                   kPaths[i], Show({got[i]}).c_str(), Show({want[i]}).c_str());
      }
    } else {
      FUZZ_CHECK(s.code() == Status::Code::kDataError, "refused with code %d: %s",
                 static_cast<int>(s.code()), s.message().c_str());
      FUZZ_CHECK(!ref_ok || !e->checker.IsValid(line),
                 "valid JSON refused (%s), On-Demand accepts: %s", s.message().c_str(),
                 Quoted(line).c_str());
    }
    alone_status.push_back(s);
    alone_values.push_back(s.ok() ? Show(got) : "");
  }

  // The same lines indexed as one run (of whole lines: the last one ended too).
  std::string run(text);
  if (!run.empty() && run.back() != '\n') run += '\n';
  const size_t run_size = run.size();
  run.append(FieldExtractor::kPadding, ' ');
  e->index.SetRun(run.data(), run_size);
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto& [off, len] = lines[i];
    std::vector<ValueRef> got;
    const Status s = e->ex.Extract(run.data() + off, len, run.size() - off, &got, &e->index);
    FUZZ_CHECK(s.ok() == alone_status[i].ok() && s.message() == alone_status[i].message(),
               "line %zu: in a run \"%s\", alone \"%s\": %s", i + 1, s.message().c_str(),
               alone_status[i].message().c_str(), Quoted(text.substr(off, len)).c_str());
    if (s.ok()) {
      FUZZ_CHECK(Show(got) == alone_values[i], "line %zu: in a run %s, alone %s", i + 1,
                 Show(got).c_str(), alone_values[i].c_str());
    }
  }
  e->index.SetRun(run.data(), run_size);
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto& [off, len] = lines[i];
    std::vector<ValueRef> got;
    Status s = e->lazy.Extract(run.data() + off, len, run.size() - off, &got, &e->index);
    if (s.ok()) s = e->lazy.ExtractRest(run.data() + off, len, &got);
    FUZZ_CHECK(s.ok() == alone_status[i].ok() && s.message() == alone_status[i].message(),
               "line %zu: deferred \"%s\", eager \"%s\": %s", i + 1, s.message().c_str(),
               alone_status[i].message().c_str(), Quoted(text.substr(off, len)).c_str());
    if (s.ok()) {
      FUZZ_CHECK(Show(got) == alone_values[i], "line %zu: deferred %s, eager %s", i + 1,
                 Show(got).c_str(), alone_values[i].c_str());
    }
  }
  return 0;
}
