// TableWriter (--format table): the bytes of tables, written into an OutputFile that is never
// opened (its buffer holds what was written). Every expectation is counted by hand: columns
// two spaces apart, each as wide as its widest cell.
#include "output/table_writer.h"

#include <catch2/catch.hpp>
#include <limits>
#include <string>

#include "time/timestamp.h"

namespace logtide {
namespace {

constexpr Nanos kMinute = 60 * kNanosPerSecond;
constexpr const char* kBounds = "1970-01-01T00:00:00Z  1970-01-01T00:01:00Z  ";

std::string Str(std::string_view s) {
  std::string out;
  AppendTableString(s, &out);
  return out;
}

std::string Raw(std::string_view s) {
  std::string out;
  AppendTableRaw(s, &out);
  return out;
}

void Row(TableWriter* w, std::string_view key, const ValueRef& v) {
  w->BeginRecord(0, kMinute);
  w->Key(ValueRef::String(key));
  w->Value(v);
  w->EndRecord(RecordRevision{});
}

TEST_CASE("table: numbers align right, text left, null reads null, no line ends in a space") {
  OutputFile out;
  TableWriter w({"service"}, {"count", "avg"}, false, false, &out);
  w.BeginRecord(0, kMinute);
  w.Key(ValueRef::String("api"));
  w.Int(3);
  w.Double(0.5);
  w.EndRecord(RecordRevision{});
  w.BeginRecord(0, kMinute);
  w.Key(ValueRef::String("web-frontend"));
  w.Int(12);
  w.Null();
  w.EndRecord(RecordRevision{});
  CHECK(out.buffer()->empty());  // one table, at the end of the run
  w.Finish();
  CHECK(*out.buffer() == std::string("window_start          window_end            service       "
                                     "count   avg\n") +
                             kBounds + "api               3   0.5\n" + kBounds +
                             "web-frontend     12  null\n\n");
}

TEST_CASE("table: a non-finite double is null, and a column of nulls only is aligned left") {
  OutputFile out;
  TableWriter w({}, {"average", "x"}, false, false, &out);
  w.BeginRecord(0, kMinute);
  w.Double(std::numeric_limits<double>::quiet_NaN());
  w.Null();
  w.EndRecord(RecordRevision{});
  w.Finish();
  CHECK(*out.buffer() == std::string("window_start          window_end            average  x\n") +
                             kBounds + "null     null\n\n");
}

TEST_CASE("table: revision is a number column, phase and final text columns") {
  OutputFile out;
  TableWriter w({}, {"n"}, true, false, &out);
  w.BeginRecord(0, kMinute);
  w.Int(5);
  w.EndRecord(RecordRevision{1, RecordPhase::kEarly, false});
  w.BeginRecord(0, kMinute);
  w.Int(7);
  w.EndRecord(RecordRevision{2, RecordPhase::kOnTime, true});
  w.Finish();
  CHECK(*out.buffer() ==
        std::string("window_start          window_end            n  revision  phase    final\n") +
            kBounds + "5         1  early    false\n" + kBounds + "7         2  on_time  true\n\n");
}

TEST_CASE("table: per firing, each firing is a table of its own, aligned alone") {
  OutputFile out;
  TableWriter w({"k"}, {"v"}, false, true, &out);
  Row(&w, "a", ValueRef::Int(100));
  w.EndFiring();
  const std::string first =
      std::string("window_start          window_end            k    v\n") + kBounds + "a  100\n\n";
  CHECK(*out.buffer() == first);
  Row(&w, "bb", ValueRef::String("x"));  // text: this table's v is aligned left
  Row(&w, "c", ValueRef::Int(1));
  w.EndFiring();
  w.EndFiring();  // a firing with no records writes nothing
  w.Finish();
  CHECK(*out.buffer() == first + "window_start          window_end            k   v\n" + kBounds +
                             "bb  x\n" + kBounds + "c   1\n\n");
}

TEST_CASE("table: without per firing, EndFiring writes nothing; no records, no table") {
  OutputFile out;
  TableWriter w({"k"}, {"v"}, false, false, &out);
  w.EndFiring();
  w.Finish();
  CHECK(out.buffer()->empty());
  Row(&w, "a", ValueRef::Int(1));
  w.EndFiring();
  CHECK(out.buffer()->empty());
}

TEST_CASE("table: wide characters take two columns, combining marks none") {
  OutputFile out;
  TableWriter w({"k"}, {"n"}, false, false, &out);
  Row(&w, "\xe6\x97\xa5\xe6\x9c\xac", ValueRef::Int(1));  // 日本: 4 columns
  Row(&w, "e\xcc\x81", ValueRef::Int(22));                // e + U+0301: 1 column
  w.Finish();
  CHECK(*out.buffer() == std::string("window_start          window_end            k      n\n") +
                             kBounds + "\xe6\x97\xa5\xe6\x9c\xac   1\n" + kBounds +
                             "e\xcc\x81     22\n\n");
}

TEST_CASE("table: a table ends after kMaxRows rows, and the next one has its header") {
  OutputFile out;
  TableWriter w({}, {"n"}, false, false, &out);
  for (size_t i = 0; i < TableWriter::kMaxRows; ++i) {
    w.BeginRecord(0, kMinute);
    w.Int(i);
    w.EndRecord(RecordRevision{});
  }
  // The first table is written as its last row ends, before the run does.
  const size_t first = out.buffer()->size();
  CHECK(first > 0);
  CHECK(out.buffer()->substr(first - 7) == "  999\n\n");
  w.BeginRecord(0, kMinute);
  w.Int(5);
  w.EndRecord(RecordRevision{});
  w.Finish();
  CHECK(out.buffer()->substr(first) ==
        std::string("window_start          window_end            n\n") + kBounds + "5\n\n");
}

TEST_CASE("table: a table ends once its cells hold kMaxBytes") {
  OutputFile out;
  TableWriter w({"k"}, {}, false, false, &out);
  const std::string big(TableWriter::kMaxBytes, 'x');
  w.BeginRecord(0, kMinute);
  w.Key(ValueRef::String(big));
  w.EndRecord(RecordRevision{});
  // Written without waiting for the end (the unopened file drops what it flushes: the table's
  // last bytes are left).
  CHECK(*out.buffer() == "\n");
  w.BeginRecord(0, kMinute);
  w.Key(ValueRef::String("y"));
  w.EndRecord(RecordRevision{});
  const size_t first = out.buffer()->size();
  w.Finish();
  CHECK(out.buffer()->substr(first) ==
        std::string("window_start          window_end            k\n") + kBounds + "y\n\n");
}

TEST_CASE("table: a string is bare unless it would read as something else") {
  CHECK(Str("api") == "api");
  CHECK(Str("GET /api/users") == "GET /api/users");
  CHECK(Str("2024-05-01") == "2024-05-01");  // not a number
  CHECK(Str("1.") == "1.");
  CHECK(Str("01") == "01");
  CHECK(Str("-") == "-");
  CHECK(Str("a\\b") == "a\\b");
  CHECK(Str("\xc3\xbc") == "\xc3\xbc");  // ü
  CHECK(Str("") == "\"\"");
  CHECK(Str("null") == "\"null\"");
  CHECK(Str("true") == "\"true\"");
  CHECK(Str("false") == "\"false\"");
  CHECK(Str("500") == "\"500\"");
  CHECK(Str("-1.5e+3") == "\"-1.5e+3\"");
  CHECK(Str("0") == "\"0\"");
  CHECK(Str("\"x") == "\"\\\"x\"");
  CHECK(Str(" a") == "\" a\"");
  CHECK(Str("a ") == "\"a \"");
  CHECK(Str("a  b") == "\"a  b\"");
}

TEST_CASE("table: control characters, separators, overrides and bad bytes are escaped") {
  CHECK(Str("a\nb") == "\"a\\nb\"");
  CHECK(Str("tab\there\r") == "\"tab\\there\\r\"");
  CHECK(Str("\x1b[31mred") == "\"\\u001b[31mred\"");
  CHECK(Str(std::string_view("a\0b", 3)) == "\"a\\u0000b\"");
  CHECK(Str("\x7f") == "\"\\u007f\"");
  CHECK(Str("\xc2\x9b"
            "2J") == "\"\\u009b2J\"");  // C1 CSI
  CHECK(Str("abc\xe2\x80\xae"
            "def") == "\"abc\\u202edef\"");  // right-to-left override
  CHECK(Str("a\xe2\x80\xa8"
            "b") == "\"a\\u2028b\"");  // line separator
  CHECK(Str("a\xff"
            "b") == "\"a\\xffb\"");
  CHECK(Str("\xc3") == "\"\\xc3\"");  // cut short
}

TEST_CASE("table: objects and arrays keep their JSON text, with no control byte") {
  CHECK(Raw("{\"a\":[1,2]}") == "{\"a\":[1,2]}");
  CHECK(Raw("{\"a\":\t1}") == "{\"a\": 1}");
  CHECK(Raw("[\"\x7f\",\"\xc2\x85\"]") == "[\"\\u007f\",\"\\u0085\"]");
  CHECK(Raw("[\"\xe6\x97\xa5\"]") == "[\"\xe6\x97\xa5\"]");
}

TEST_CASE("table: display width counts terminal columns") {
  CHECK(DisplayWidth("") == 0);
  CHECK(DisplayWidth("abc") == 3);
  CHECK(DisplayWidth("\xc3\xbc") == 1);                  // ü
  CHECK(DisplayWidth("\xe6\x97\xa5\xe6\x9c\xac") == 4);  // 日本
  CHECK(DisplayWidth("\xea\xb0\x80") == 2);              // 가 (Hangul)
  CHECK(DisplayWidth("\xef\xbc\xa1") == 2);              // Ａ (fullwidth)
  CHECK(DisplayWidth("\xf0\x9f\x98\x80") == 2);          // 😀
  CHECK(DisplayWidth("e\xcc\x81") == 1);                 // e + combining acute
  CHECK(DisplayWidth("a\xe2\x80\x8b"
                     "b") == 2);         // zero-width space
  CHECK(DisplayWidth("\xff\xfe") == 2);  // not UTF-8: a column a byte
}

}  // namespace
}  // namespace logtide
