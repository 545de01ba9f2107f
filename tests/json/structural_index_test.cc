#include "json/structural_index.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "json/extractor.h"

namespace logtide {
namespace {

// A run of `count` lines of about 40 bytes, with `bad` (if >= 0) broken by a raw control
// character inside a string, which stage 1 refuses.
struct Run {
  std::string bytes;
  std::vector<size_t> starts, sizes;
  Run(int count, int bad) {
    for (int i = 0; i < count; ++i) {
      std::string line = "{\"n\":" + std::to_string(i) + ",\"s\":\"" +
                         (i == bad ? std::string("a\x01") : std::string("abcdefgh")) + "\"}";
      starts.push_back(bytes.size());
      sizes.push_back(line.size());
      bytes += line + "\n";
    }
    size_ = bytes.size();
    bytes.append(StructuralIndex::kPiece, ' ');  // padding, and more
  }
  size_t size_;
  const char* line(int i) const { return bytes.data() + starts[static_cast<size_t>(i)]; }
};

TEST_CASE("a run is indexed piece by piece as its lines come") {
  Run run(5000, -1);  // about 130 KiB: three pieces
  StructuralIndex index;
  index.SetRun(run.bytes.data(), run.size_);
  for (int i = 0; i < 5000; ++i) {
    INFO(i);
    REQUIRE(index.Find(run.line(i), run.sizes[static_cast<size_t>(i)]));
    // The piece holding the line starts at or before it and ends at a line end.
    REQUIRE(index.data() <= run.line(i));
    const char* end = index.data() + (index.tokens()[index.count() - 1]);
    REQUIRE(*end == '}');
  }
  // A line outside the run is not found.
  std::string other = "{\"n\":1}";
  other.append(64, ' ');
  CHECK_FALSE(index.Find(other.data(), 7));
}

TEST_CASE("a piece stage 1 refuses is read line by line; the pieces after it are indexed") {
  Run run(5000, 100);  // the bad line is in the first piece
  StructuralIndex index;
  index.SetRun(run.bytes.data(), run.size_);
  int found = 0, not_found = 0, first_found = -1;
  for (int i = 0; i < 5000; ++i) {
    if (index.Find(run.line(i), run.sizes[static_cast<size_t>(i)])) {
      if (first_found < 0) first_found = i;
      ++found;
    } else {
      ++not_found;
      CHECK(first_found < 0);  // only lines of the refused (first) piece
    }
  }
  CHECK(not_found > 100);  // the whole first piece, not just the bad line
  CHECK(found > 2000);     // later pieces are indexed
  // The extractor gives the same values both ways, and refuses the bad line either way.
  FieldExtractor ex;
  int n;
  REQUIRE(ex.AddPath("n", &n).ok());
  REQUIRE(ex.Finish().ok());
  index.SetRun(run.bytes.data(), run.size_);
  std::vector<ValueRef> values;
  for (int i = 0; i < 5000; ++i) {
    const size_t at = run.starts[static_cast<size_t>(i)];
    Status s = ex.Extract(run.line(i), run.sizes[static_cast<size_t>(i)], run.bytes.size() - at,
                          &values, &index);
    INFO(i);
    if (i == 100) {
      CHECK_FALSE(s.ok());
    } else {
      REQUIRE(s.ok());
      CHECK(values[n].i == i);
    }
  }
}

TEST_CASE("a line longer than a piece is indexed whole, between pieces of short lines") {
  // Short lines, one line of ~200 KiB (a long string and a long array), short lines again.
  std::string run, big = "{\"n\":-1,\"s\":\"" + std::string(100000, 'x') + "\",\"a\":[";
  for (int i = 0; i < 20000; ++i) big += (i ? ",1" : "1");
  big += "]}";
  std::vector<std::string> lines;
  for (int i = 0; i < 3000; ++i) lines.push_back("{\"n\":" + std::to_string(i) + "}");
  lines.push_back(big);
  for (int i = 0; i < 3000; ++i) lines.push_back("{\"n\":" + std::to_string(i) + "}");
  for (const std::string& l : lines) run += l + "\n";
  const size_t size = run.size();
  run.append(FieldExtractor::kPadding, ' ');
  FieldExtractor ex;
  int n;
  REQUIRE(ex.AddPath("n", &n).ok());
  REQUIRE(ex.Finish().ok());
  StructuralIndex index;
  index.SetRun(run.data(), size);
  std::vector<ValueRef> values;
  size_t at = 0;
  int found = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    INFO(i);
    REQUIRE(ex.Extract(run.data() + at, lines[i].size(), run.size() - at, &values, &index).ok());
    CHECK(values[n].i == (i < 3000 ? static_cast<int64_t>(i) : i == 3000 ? -1 : static_cast<int64_t>(i) - 3001));
    found += index.Covers(run.data() + at, lines[i].size());
    at += lines[i].size() + 1;
  }
  CHECK(found == static_cast<int>(lines.size()));  // every line, the long one too, from the run
}

}  // namespace
}  // namespace logtide
