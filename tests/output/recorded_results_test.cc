// ResultRecorder and ReplayResult: every kind of aggregate result, recorded and replayed, gives
// the sink the same calls; the bytes are EncodeValue's, plus the two tagged fixed-width forms.
#include "output/recorded_results.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "json/value.h"

namespace logtide {
namespace {

// Renders each call it receives as a line.
class CallLog final : public ValueSink {
 public:
  std::vector<std::string> calls;
  void Null() override { calls.push_back("null"); }
  void Int(__int128 v) override {
    const bool neg = v < 0;
    unsigned __int128 u = neg ? -static_cast<unsigned __int128>(v) : v;
    std::string digits;
    do {
      digits.insert(digits.begin(), static_cast<char>('0' + u % 10));
      u /= 10;
    } while (u != 0);
    calls.push_back("int " + std::string(neg ? "-" : "") + digits);
  }
  void Double(double v) override {
    if (std::isnan(v)) return calls.push_back("double nan");
    calls.push_back("double " + std::to_string(v) + (std::signbit(v) ? " (negative)" : ""));
  }
  void Value(const ValueRef& v) override {
    std::string s = "value " + std::to_string(static_cast<int>(v.type));
    if (v.is_number())
      s += v.is_int ? " int " + std::to_string(v.i) : " double " + std::to_string(v.d);
    if (v.type == ValueType::kString || v.type == ValueType::kRaw)
      s += " '" + std::string(v.s) + "'";
    calls.push_back(s);
  }
};

// Gives each result to `sink`, in this order.
void SendAll(ValueSink* sink) {
  const __int128 big = static_cast<__int128>(std::numeric_limits<int64_t>::max()) * 1000 + 7;
  sink->Int(big);
  sink->Int(-big);
  sink->Int(0);
  sink->Double(0.375);
  sink->Double(-0.0);
  sink->Double(std::numeric_limits<double>::infinity());
  sink->Double(std::nan(""));
  sink->Double(2.0);  // integral: still a double, not a number value
  sink->Null();
  sink->Value(ValueRef::Bool(true));
  sink->Value(ValueRef::Bool(false));
  sink->Value(ValueRef::Int(-42));
  sink->Value(ValueRef::Fraction(1.5));
  sink->Value(ValueRef::String(std::string_view("a\0b", 3)));
  sink->Value(ValueRef::String(""));
  sink->Value(ValueRef::Raw("[1,{\"x\":null}]"));
}

TEST_CASE("recorded results: replaying gives the sink the calls recorded, in order") {
  CallLog direct;
  SendAll(&direct);
  std::string bytes;
  ResultRecorder rec(&bytes);
  SendAll(&rec);
  CallLog replayed;
  std::string_view in = bytes;
  std::string scratch;
  for (size_t i = 0; i < direct.calls.size(); ++i) {
    REQUIRE_FALSE(in.empty());
    ReplayResult(&in, &replayed, &scratch);
    // A string holding 0x00 is read from scratch, valid until the next replay: check now.
    CHECK(replayed.calls.back() == direct.calls[i]);
  }
  CHECK(in.empty());
  CHECK(replayed.calls == direct.calls);
}

TEST_CASE("recorded results: the bytes are EncodeValue's and the two tagged forms") {
  std::string bytes;
  ResultRecorder rec(&bytes);
  rec.Null();
  CHECK(bytes == std::string(1, '\0'));

  bytes.clear();
  const ValueRef s = ValueRef::String("api");
  rec.Value(s);
  std::string want;
  EncodeValue(s, &want);
  CHECK(bytes == want);

  bytes.clear();
  rec.Int(-1);
  REQUIRE(bytes.size() == 17);
  CHECK(bytes[0] == '\x10');
  CHECK(bytes.substr(1) == std::string(16, '\xFF'));  // little-endian two's complement

  bytes.clear();
  rec.Double(1.0);
  REQUIRE(bytes.size() == 9);
  CHECK(bytes[0] == '\x11');
  CHECK(bytes.substr(1) == std::string("\0\0\0\0\0\0\xF0\x3F", 8));
}

TEST_CASE("recorded results: Value(null) replays as Null") {
  std::string bytes;
  ResultRecorder rec(&bytes);
  rec.Value(ValueRef::Null());
  CallLog log;
  std::string_view in = bytes;
  std::string scratch;
  ReplayResult(&in, &log, &scratch);
  CHECK(in.empty());
  CHECK(log.calls == std::vector<std::string>{"null"});
}

}  // namespace
}  // namespace logtide
