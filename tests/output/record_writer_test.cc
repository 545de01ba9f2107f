// RecordWriter: the bytes of a record in each format, written into an OutputFile that is never
// opened (its buffer holds what was written).
#include "output/record_writer.h"

#include <catch2/catch.hpp>

#include "time/timestamp.h"

namespace logtide {
namespace {

constexpr Nanos kMinute = 60 * kNanosPerSecond;

TEST_CASE("record writer: an NDJSON record names every column, in order") {
  OutputFile out;
  RecordWriter w(OutputFormat::kNdjson, {"service"}, {"count", "avg_v"}, false, &out);
  w.WriteHeader();  // nothing for NDJSON
  w.BeginRecord(0, kMinute);
  w.Key(ValueRef::String("api"));
  w.Int(3);
  w.Double(0.5);
  w.EndRecord(RecordRevision{});
  CHECK(*out.buffer() ==
        "{\"window_start\":\"1970-01-01T00:00:00Z\",\"window_end\":\"1970-01-01T00:01:00Z\","
        "\"service\":\"api\",\"count\":3,\"avg_v\":0.5}\n");
}

TEST_CASE(
    "record writer: NDJSON escapes strings, writes null, and the revision, phase, final last") {
  OutputFile out;
  RecordWriter w(OutputFormat::kNdjson, {"k"}, {"v"}, true, &out);
  w.BeginRecord(kMinute, 2 * kMinute);
  w.Key(ValueRef::String("say \"hi\"\n"));
  w.Null();
  w.EndRecord(RecordRevision{2, RecordPhase::kLate, false});
  CHECK(*out.buffer() ==
        "{\"window_start\":\"1970-01-01T00:01:00Z\",\"window_end\":\"1970-01-01T00:02:00Z\","
        "\"k\":\"say "
        "\\\"hi\\\"\\n\",\"v\":null,\"revision\":2,\"phase\":\"late\",\"final\":false}\n");
}

TEST_CASE("record writer: CSV has a header row and quotes fields as RFC 4180 does") {
  OutputFile out;
  RecordWriter w(OutputFormat::kCsv, {"name"}, {"count"}, false, &out);
  w.WriteHeader();
  w.BeginRecord(0, kMinute);
  w.Key(ValueRef::String("a,b"));
  w.Int(1);
  w.EndRecord(RecordRevision{});
  w.BeginRecord(0, kMinute);
  w.Key(ValueRef::String("say \"hi\""));
  w.Int(2);
  w.EndRecord(RecordRevision{});
  w.BeginRecord(0, kMinute);
  w.Key(ValueRef::Null());  // null is an empty field
  w.Null();
  w.EndRecord(RecordRevision{});
  CHECK(*out.buffer() ==
        "window_start,window_end,name,count\n"
        "1970-01-01T00:00:00Z,1970-01-01T00:01:00Z,\"a,b\",1\n"
        "1970-01-01T00:00:00Z,1970-01-01T00:01:00Z,\"say \"\"hi\"\"\",2\n"
        "1970-01-01T00:00:00Z,1970-01-01T00:01:00Z,,\n");
}

TEST_CASE("record writer: consecutive records of other windows get their own bounds") {
  // The writer keeps the last bounds it formatted: a new window must not reuse them.
  OutputFile out;
  RecordWriter w(OutputFormat::kCsv, {}, {"count"}, false, &out);
  for (int m = 0; m < 3; ++m) {
    w.BeginRecord(m * kMinute, (m + 1) * kMinute);
    w.Int(m);
    w.EndRecord(RecordRevision{});
  }
  CHECK(*out.buffer() ==
        "1970-01-01T00:00:00Z,1970-01-01T00:01:00Z,0\n"
        "1970-01-01T00:01:00Z,1970-01-01T00:02:00Z,1\n"
        "1970-01-01T00:02:00Z,1970-01-01T00:03:00Z,2\n");
}

}  // namespace
}  // namespace logtide

namespace logtide {
namespace {

TEST_CASE("record writer: window_label follows window_end, in NDJSON and in the CSV header") {
  WindowSpec days;
  REQUIRE(ParseWindowSpec("tumbling:1d", &days).ok());
  WindowLabel label;
  REQUIRE(WindowLabel::Create(days, &label).ok());
  constexpr Nanos kDay = 86400 * kNanosPerSecond;
  OutputFile json;
  RecordWriter w(OutputFormat::kNdjson, {"k"}, {"count"}, false, &json);
  w.set_window_label(&label);
  // Two records of one window (the formatted bounds are reused), then the next window.
  for (Nanos start : {Nanos{0}, Nanos{0}, kDay}) {
    w.BeginRecord(start, start + kDay);
    w.Key(ValueRef::String("a"));
    w.Int(1);
    w.EndRecord(RecordRevision{});
  }
  CHECK(*json.buffer() ==
        "{\"window_start\":\"1970-01-01T00:00:00Z\",\"window_end\":\"1970-01-02T00:00:00Z\","
        "\"window_label\":\"1970-01-01\",\"k\":\"a\",\"count\":1}\n"
        "{\"window_start\":\"1970-01-01T00:00:00Z\",\"window_end\":\"1970-01-02T00:00:00Z\","
        "\"window_label\":\"1970-01-01\",\"k\":\"a\",\"count\":1}\n"
        "{\"window_start\":\"1970-01-02T00:00:00Z\",\"window_end\":\"1970-01-03T00:00:00Z\","
        "\"window_label\":\"1970-01-02\",\"k\":\"a\",\"count\":1}\n");
  OutputFile csv;
  RecordWriter c(OutputFormat::kCsv, {"k"}, {"count"}, true, &csv);
  c.set_window_label(&label);
  c.WriteHeader();
  c.BeginRecord(kDay, 2 * kDay);
  c.Key(ValueRef::String("a"));
  c.Int(2);
  c.EndRecord(RecordRevision{0, RecordPhase::kOnTime, true});
  CHECK(*csv.buffer() ==
        "window_start,window_end,window_label,k,count,revision,phase,final\n"
        "1970-01-02T00:00:00Z,1970-01-03T00:00:00Z,1970-01-02,a,2,0,on_time,true\n");
}

}  // namespace
}  // namespace logtide
