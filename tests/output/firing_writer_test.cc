// FiringWriter: the records of one firing in the documented order (man/logtide.1, SEMANTICS:
// by window end, then window start, then key), each with its own results and revision, in
// either output format.
#include "output/firing_writer.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "json/value.h"
#include "output/output_file.h"
#include "output/record_writer.h"

namespace logtide {
namespace {

constexpr Nanos kMinute = 60 * kNanosPerSecond;

// Renders the calls it receives as one line per record: "start end|key fields|results|rev",
// times in minutes.
class TextSink final : public RecordSink {
 public:
  std::vector<std::string> lines;
  void BeginRecord(Nanos start, Nanos end) override {
    line_ = std::to_string(start / kMinute) + " " + std::to_string(end / kMinute) + "|";
  }
  void Key(const ValueRef& v) override { line_ += Text(v) + ";"; }
  void EndRecord(const RecordRevision& revision) override {
    lines.push_back(line_ + "|" + std::to_string(revision.number));
  }
  void Null() override { line_ += "|null"; }
  void Int(__int128 v) override { line_ += "|" + std::to_string(static_cast<int64_t>(v)); }
  void Double(double v) override { line_ += "|" + std::to_string(v); }
  void Value(const ValueRef& v) override { line_ += "|" + Text(v); }

 private:
  static std::string Text(const ValueRef& v) {
    switch (v.type) {
      case ValueType::kNull:
        return "null";
      case ValueType::kFalse:
        return "false";
      case ValueType::kTrue:
        return "true";
      case ValueType::kNumber:
        return v.is_int ? std::to_string(v.i) : std::to_string(v.d);
      default:
        return "'" + std::string(v.s) + "'";
    }
  }
  std::string line_;
};

std::string Key(std::vector<ValueRef> fields) {
  std::string k;
  for (const ValueRef& f : fields) EncodeValue(f, &k);
  return k;
}

TEST_CASE("firing writer: records go by window end, then start, then key") {
  // Added in no order: sliding windows (equal ends, different starts), keys of two fields
  // comparing on their first and on their second, a null and a number before strings.
  const std::vector<std::string> keys = {
      Key({ValueRef::String("b"), ValueRef::Int(1)}),   // 0
      Key({ValueRef::String("a"), ValueRef::Int(2)}),   // 1
      Key({ValueRef::String("a"), ValueRef::Int(10)}),  // 2
      Key({ValueRef::Null(), ValueRef::Int(1)}),        // 3
      Key({ValueRef::Int(7), ValueRef::Int(1)}),        // 4
  };
  struct Rec {
    Nanos start, end;
    int key;
    int64_t revision;
  };
  const std::vector<Rec> recs = {
      {0, 2 * kMinute, 0, 5}, {kMinute, 2 * kMinute, 1, 6},  {0, kMinute, 2, 7},
      {0, 2 * kMinute, 1, 8}, {kMinute, 2 * kMinute, 3, 9},  {0, kMinute, 4, 10},
      {0, kMinute, 1, 11},    {kMinute, 2 * kMinute, 2, 12},
  };
  FiringWriter firing;
  firing.Clear();
  for (const Rec& r : recs) firing.Add(r.start, r.end, keys[r.key]);
  REQUIRE(firing.size() == recs.size());
  TextSink sink;
  // Each record's result is its number as added, so the line shows which record it is.
  firing.Write(&sink, [&](uint32_t i, ValueSink* s) {
    s->Int(i);
    return RecordRevision{recs[i].revision};
  });
  CHECK(sink.lines == std::vector<std::string>{
                          "0 1|7;1;|5|10",     // end 1: the number key first,
                          "0 1|'a';2;|6|11",   // then "a",2 before "a",10
                          "0 1|'a';10;|2|7",   //
                          "0 2|'a';2;|3|8",    // end 2, start 0
                          "0 2|'b';1;|0|5",    //
                          "1 2|null;1;|4|9",   // end 2, start 1: null first
                          "1 2|'a';2;|1|6",    //
                          "1 2|'a';10;|7|12",  //
                      });
}

TEST_CASE("firing writer: Clear starts a new firing, and an empty one writes nothing") {
  const std::string a = Key({ValueRef::String("a")}), b = Key({ValueRef::String("b")});
  FiringWriter firing;
  TextSink sink;
  firing.Clear();
  firing.Add(0, kMinute, b);
  firing.Write(&sink, [](uint32_t, ValueSink* s) {
    s->Null();
    return RecordRevision{-1};
  });
  firing.Clear();
  firing.Write(&sink, [](uint32_t, ValueSink*) {
    FAIL("no record to write");
    return RecordRevision{-1};
  });
  firing.Clear();
  firing.Add(0, kMinute, a);
  firing.Write(&sink, [](uint32_t i, ValueSink* s) {
    s->Int(i);
    return RecordRevision{4};
  });
  CHECK(sink.lines == std::vector<std::string>{"0 1|'b';|null|-1", "0 1|'a';|0|4"});
}

// One firing of three records (two keys of one window, and an earlier window), each result
// kind once, written in `format` into an OutputFile that is never opened.
std::string WriteFiring(OutputFormat format) {
  OutputFile out;
  RecordWriter w(format, {"host", "n"}, {"count", "avg", "first"}, true, &out);
  w.WriteHeader();
  const std::vector<std::string> keys = {
      Key({ValueRef::String("web,1"), ValueRef::Int(2)}),
      Key({ValueRef::String("db"), ValueRef::Null()}),
      Key({ValueRef::String("say \"hi\""), ValueRef::Number(0.5)}),
  };
  FiringWriter firing;
  firing.Clear();
  firing.Add(kMinute, 2 * kMinute, keys[0]);
  firing.Add(kMinute, 2 * kMinute, keys[1]);
  firing.Add(0, kMinute, keys[2]);
  const RecordRevision revisions[] = {{3, RecordPhase::kLate, true},
                                      {1, RecordPhase::kEarly, false},
                                      {0, RecordPhase::kOnTime, false}};
  firing.Write(&w, [&](uint32_t i, ValueSink* s) {
    s->Int(static_cast<__int128>(10 + i));
    if (i == 1) {
      s->Null();
      s->Value(ValueRef::Raw("{\"a\":[1,2]}"));
    } else {
      s->Double(0.25 * (i + 1));
      s->Value(ValueRef::String("x\"y"));
    }
    return revisions[i];
  });
  return *out.buffer();
}

TEST_CASE("firing writer: the bytes of a firing in NDJSON") {
  CHECK(WriteFiring(OutputFormat::kNdjson) ==
        "{\"window_start\":\"1970-01-01T00:00:00Z\",\"window_end\":\"1970-01-01T00:01:00Z\","
        "\"host\":\"say \\\"hi\\\"\",\"n\":0.5,\"count\":12,\"avg\":0.75,\"first\":\"x\\\"y\","
        "\"revision\":0,\"phase\":\"on_time\",\"final\":false}\n"
        "{\"window_start\":\"1970-01-01T00:01:00Z\",\"window_end\":\"1970-01-01T00:02:00Z\","
        "\"host\":\"db\",\"n\":null,\"count\":11,\"avg\":null,\"first\":{\"a\":[1,2]},"
        "\"revision\":1,\"phase\":\"early\",\"final\":false}\n"
        "{\"window_start\":\"1970-01-01T00:01:00Z\",\"window_end\":\"1970-01-01T00:02:00Z\","
        "\"host\":\"web,1\",\"n\":2,\"count\":10,\"avg\":0.25,\"first\":\"x\\\"y\","
        "\"revision\":3,\"phase\":\"late\",\"final\":true}\n");
}

TEST_CASE("firing writer: the bytes of a firing in CSV") {
  CHECK(WriteFiring(OutputFormat::kCsv) ==
        "window_start,window_end,host,n,count,avg,first,revision,phase,final\n"
        "1970-01-01T00:00:00Z,1970-01-01T00:01:00Z,\"say "
        "\"\"hi\"\"\",0.5,12,0.75,\"x\"\"y\",0,on_time,"
        "false\n"
        "1970-01-01T00:01:00Z,1970-01-01T00:02:00Z,db,,11,,\"{\"\"a\"\":[1,2]}\",1,early,false\n"
        "1970-01-01T00:01:00Z,1970-01-01T00:02:00Z,\"web,1\",2,10,0.25,\"x\"\"y\",3,late,true\n");
}

}  // namespace
}  // namespace logtide
