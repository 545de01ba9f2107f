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
