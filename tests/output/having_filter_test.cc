// --having's filter: records pass on unchanged when every expression holds, values are kept
// across the writer's calls, revisions pass only when final.
#include "output/having_filter.h"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "json/json_text.h"

namespace logtide {
namespace {

// Renders each record it is given as one line: start end | key ... | values ... | revision.
class TextSink final : public RecordSink {
 public:
  void BeginRecord(Nanos start, Nanos end) override { line_ = fmt::format("{} {} |", start, end); }
  void Key(const ValueRef& v) override {
    line_ += " k:";
    AppendJsonValue(v, &line_);
  }
  void EndRecord(const RecordRevision& r) override {
    lines.push_back(line_ + fmt::format(" r{}", r.number));
  }
  void Null() override { line_ += " null"; }
  void Int(__int128 v) override {
    line_ += " i:";
    AppendInt128(v, &line_);
  }
  void Double(double v) override { line_ += fmt::format(" d:{}", v); }
  void Value(const ValueRef& v) override {
    line_ += " v:";
    AppendJsonValue(v, &line_);
  }
  std::vector<std::string> lines;

 private:
  std::string line_;
};

RecordFields Fields(bool with_revision = false) {
  RecordFields f;
  f.names = {"window_start", "window_end", "host", "n", "avg", "top"};
  f.key_paths = {"host"};
  f.with_revision = with_revision;
  if (with_revision) f.names.insert(f.names.end(), {"revision", "phase", "final"});
  return f;
}

// Sends one record through `filter`: key `host`, n, avg, top (raw JSON).
void Send(HavingFilter* filter, const std::string& host, __int128 n, double avg,
          RecordRevision revision = {}) {
  std::string key = host;  // overwritten after the call, as a decoded key's buffer is
  filter->BeginRecord(60'000'000'000, 120'000'000'000);  // 00:01 to 00:02
  filter->Key(ValueRef::String(key));
  key.assign(key.size(), '#');
  filter->Int(n);
  filter->Double(avg);
  std::string raw = "[\"a\"]";
  filter->Value(ValueRef::Raw(raw));
  raw.assign(raw.size(), '#');
  filter->EndRecord(revision);
}

TEST_CASE("having: records pass on unchanged when the expression holds") {
  TextSink sink;
  std::unique_ptr<HavingFilter> f;
  REQUIRE(HavingFilter::Create({"n >= 5 and host != \"b\""}, Fields(), &sink, &f).ok());
  Send(f.get(), "a", 5, 1.5);
  Send(f.get(), "a", 4, 1.5);
  Send(f.get(), "b", 9, 1.5);
  REQUIRE(sink.lines.size() == 1);
  CHECK(sink.lines[0] == "60000000000 120000000000 | k:\"a\" i:5 d:1.5 v:[\"a\"] r-1");
  CHECK(f->kept() == 1);
  CHECK(f->dropped() == 2);
}

TEST_CASE("having: a key's bytes are kept though the writer reuses its buffer") {
  TextSink sink;
  std::unique_ptr<HavingFilter> f;
  REQUIRE(HavingFilter::Create({"host == \"web\" and top == top"}, Fields(), &sink, &f).ok());
  Send(f.get(), "web", 1, 0);
  REQUIRE(sink.lines.size() == 1);
  CHECK(sink.lines[0] == "60000000000 120000000000 | k:\"web\" i:1 d:0 v:[\"a\"] r-1");
}

TEST_CASE("having: integers beyond 64 bits compare as doubles, and pass on exact") {
  TextSink sink;
  std::unique_ptr<HavingFilter> f;
  REQUIRE(HavingFilter::Create({"n > 9223372036854775807"}, Fields(), &sink, &f).ok());
  const __int128 big = static_cast<__int128>(INT64_MAX) * 4;
  Send(f.get(), "a", big, 0);
  Send(f.get(), "a", INT64_MAX, 0);
  REQUIRE(sink.lines.size() == 1);
  CHECK(sink.lines[0] ==
        "60000000000 120000000000 | k:\"a\" i:36893488147419103228 d:0 v:[\"a\"] r-1");
}

TEST_CASE("having: a double that is not finite is null, as it is written") {
  TextSink sink;
  std::unique_ptr<HavingFilter> f;
  REQUIRE(HavingFilter::Create({"not exists(avg)"}, Fields(), &sink, &f).ok());
  Send(f.get(), "a", 1, std::nan(""));
  Send(f.get(), "a", 1, 2.0);
  CHECK(sink.lines.size() == 1);
}

TEST_CASE("having: window bounds read as their RFC 3339 text") {
  TextSink sink;
  std::unique_ptr<HavingFilter> f;
  REQUIRE(
      HavingFilter::Create({"window_end == \"1970-01-01T00:02:00Z\""}, Fields(), &sink, &f).ok());
  Send(f.get(), "a", 1, 0);
  CHECK(sink.lines.size() == 1);
}

TEST_CASE("having: with revisions only final records are tested and written") {
  TextSink sink;
  std::unique_ptr<HavingFilter> f;
  REQUIRE(HavingFilter::Create({"n >= 1 and phase == \"late\""}, Fields(true), &sink, &f).ok());
  Send(f.get(), "a", 5, 0, RecordRevision{0, RecordPhase::kOnTime, false});
  Send(f.get(), "a", 5, 0, RecordRevision{1, RecordPhase::kLate, false});
  Send(f.get(), "a", 5, 0, RecordRevision{2, RecordPhase::kLate, true});
  REQUIRE(sink.lines.size() == 1);
  CHECK(sink.lines[0] == "60000000000 120000000000 | k:\"a\" i:5 d:0 v:[\"a\"] r2");
  CHECK(f->dropped() == 2);
}

TEST_CASE("having: a path that names no field is refused, listing the fields") {
  std::unique_ptr<HavingFilter> f;
  const Status s = HavingFilter::Create({"status >= 500"}, Fields(), nullptr, &f);
  CHECK(s.message() ==
        ".status is no field of the records: --having reads the fields a record has "
        "(window_start, window_end, host, n, avg, top)");
}

TEST_CASE("having: counts per expression the operands of the wrong type it met") {
  TextSink sink;
  std::unique_ptr<HavingFilter> f;
  REQUIRE(HavingFilter::Create({"n >= \"2\"", "host * 2 > 0"}, Fields(), &sink, &f).ok());
  Send(f.get(), "a", 5, 0);  // the first is false (number against string): the second not run
  Send(f.get(), "b", 1, 0);
  CHECK(f->literal_kind_misses() == std::vector<uint64_t>{2, 0});
  CHECK(f->type_errors() == std::vector<uint64_t>{0, 0});
  REQUIRE(HavingFilter::Create({"n > 2", "host * 2 > 0"}, Fields(), &sink, &f).ok());
  Send(f.get(), "a", 5, 0);
  Send(f.get(), "b", 1, 0);
  CHECK(f->type_errors() == std::vector<uint64_t>{0, 1});
  CHECK(sink.lines.empty());
}

TEST_CASE("having: messages name the text as written, escaped, else the canonical one") {
  Query q;
  q.having = {"(.n >= 2)", "(.host == \"a\\\"b\")"};
  CHECK(HavingLabel(q, 0) == "--having \"(.n >= 2)\"");
  q.having_written = {"n>=2", "host == \"a\\\"b\"\n\x1b"};
  CHECK(HavingLabel(q, 0) == "--having \"n>=2\"");
  CHECK(HavingLabel(q, 1) == "--having \"host == \\\"a\\\\\\\"b\\\"\\x0a\\x1b\"");
}

}  // namespace
}  // namespace logtide

namespace logtide {
namespace {

TEST_CASE("having: window_label is read as written, and the key after it by its --by path") {
  Query q;
  REQUIRE(ParseWindowSpec("tumbling:1m", &q.window).ok());
  q.by = {"host"};
  q.window_label = true;
  AggSpec count;
  REQUIRE(ParseAggSpec("count", &count).ok());
  q.aggs = {count};
  const RecordFields fields = RecordFieldsOf(q);
  CHECK(fields.names ==
        std::vector<std::string>{"window_start", "window_end", "window_label", "host", "count"});
  CHECK(fields.first_key == 3);
  CHECK(FindRecordField(fields, "host") == 3);
  WindowLabel label;
  REQUIRE(WindowLabel::Create(q.window, &label).ok());
  TextSink sink;
  std::unique_ptr<HavingFilter> f;
  REQUIRE(HavingFilter::Create({"window_label == \"1970-01-01T00:01\" and host == \"a\""}, fields,
                               &sink, &f)
              .ok());
  f->set_window_label(&label);
  for (Nanos start : {Nanos{0}, Nanos{60'000'000'000}}) {
    for (const char* host : {"a", "b"}) {
      f->BeginRecord(start, start + 60'000'000'000);
      f->Key(ValueRef::String(host));
      f->Int(1);
      f->EndRecord(RecordRevision{});
    }
  }
  // Only the second minute's record of a passes, its key and count passed on as given.
  CHECK(sink.lines == std::vector<std::string>{"60000000000 120000000000 | k:\"a\" i:1 r-1"});
}

}  // namespace
}  // namespace logtide
