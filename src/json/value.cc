#include "json/value.h"

#include <cmath>
#include <cstring>

#include "json/json_checker.h"

namespace logtide {

int CompareValues(const ValueRef& a, const ValueRef& b) {
  if (a.type != b.type) return a.type < b.type ? -1 : 1;
  switch (a.type) {
    case ValueType::kNumber:
      if (a.is_int && b.is_int) return a.i < b.i ? -1 : (a.i > b.i ? 1 : 0);
      {
        // Mixed or double: compare as long double, exact for every int64 and double.
        long double x = a.is_int ? static_cast<long double>(a.i) : a.d;
        long double y = b.is_int ? static_cast<long double>(b.i) : b.d;
        return x < y ? -1 : (x > y ? 1 : 0);
      }
    case ValueType::kString:
    case ValueType::kRaw: {
      int c = a.s.compare(b.s);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    default:
      return 0;
  }
}

namespace {

constexpr uint64_t kSignBit = uint64_t{1} << 63;
constexpr uint16_t kNoDistance = 0x8000;
// Integers within 2^53 of zero are doubles exactly; the largest distance of an int64 from its
// nearest double is 1024 (the spacing of doubles just below 2^63 is 2048).
constexpr int kMaxDistance = 1024;

// The double's bits, flipped so that their unsigned order is the doubles' order.
uint64_t OrderedBits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return (b & kSignBit) != 0 ? ~b : b | kSignBit;
}

double FromOrderedBits(uint64_t b) {
  b = (b & kSignBit) != 0 ? b & ~kSignBit : ~b;
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

void PutBig(uint64_t v, int n, char* p) {
  for (int i = n - 1; i >= 0; --i, v >>= 8) p[i] = static_cast<char>(v & 0xFF);
}

uint64_t GetBig(const char* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = v << 8 | static_cast<unsigned char>(p[i]);
  return v;
}

// The value a number's encoding stands for, from its double and distance; false when no int64
// is that far from the double (damaged bytes).
bool NumberOf(double d, int distance, ValueRef* out) {
  if (distance == 0) {
    *out = ValueRef::Number(d);
    return true;
  }
  if (!(std::fabs(d) >= 9007199254740992.0 && std::fabs(d) <= 9223372036854775808.0)) return false;
  const __int128 i = static_cast<__int128>(d) + distance;
  if (i < INT64_MIN || i > INT64_MAX) return false;
  *out = ValueRef::Int(static_cast<int64_t>(i));
  return true;
}

// Where the string whose escaped bytes start `in` ends: the offset of its terminating 0x00, or
// npos when there is none. Sets *escaped when a 0x00 0xFF pair comes first.
size_t StringEnd(std::string_view in, bool* escaped) {
  *escaped = false;
  for (size_t at = 0;;) {
    const void* z = std::memchr(in.data() + at, 0, in.size() - at);
    if (z == nullptr) return std::string_view::npos;
    const size_t j = static_cast<size_t>(static_cast<const char*>(z) - in.data());
    if (j + 1 == in.size() || static_cast<unsigned char>(in[j + 1]) != 0xFF) return j;
    *escaped = true;
    at = j + 2;
  }
}

}  // namespace

void EncodeValue(const ValueRef& v, std::string* out) {
  // One resize per value (this runs for every event's key).
  const size_t at = out->size();
  if (v.type == ValueType::kNumber) {
    out->resize(at + 11);
    char* p = out->data() + at;
    p[0] = static_cast<char>(v.type);
    const double d = v.is_int ? static_cast<double>(v.i) : v.d;
    PutBig(OrderedBits(d), 8, p + 1);
    const int distance =
        v.is_int ? static_cast<int>(static_cast<__int128>(v.i) - static_cast<__int128>(d)) : 0;
    PutBig(static_cast<uint16_t>(kNoDistance + distance), 2, p + 9);
  } else if (v.type == ValueType::kString || v.type == ValueType::kRaw) {
    const size_t n = v.s.size();
    if (std::memchr(v.s.data(), 0, n) == nullptr) {
      out->resize(at + n + 2);
      char* p = out->data() + at;
      p[0] = static_cast<char>(v.type);
      std::memcpy(p + 1, v.s.data(), n);
      p[n + 1] = 0;
    } else {
      out->push_back(static_cast<char>(v.type));
      for (char c : v.s) {
        out->push_back(c);
        if (c == 0) out->push_back(static_cast<char>(0xFF));
      }
      out->push_back(0);
    }
  } else {
    out->push_back(static_cast<char>(v.type));
  }
}

namespace {

// Whether `text` is one whole JSON text.
bool IsJsonText(std::string_view text) {
  thread_local JsonChecker checker;
  return checker.IsValid(text);
}

// Whether `in` is a sequence of whole EncodeValue outputs; *count receives how many.
bool CountEncodedValues(std::string_view in, size_t* count) {
  *count = 0;
  for (; !in.empty(); ++*count) {
    const auto type = static_cast<uint8_t>(in[0]);
    in.remove_prefix(1);
    if (type > static_cast<uint8_t>(ValueType::kRaw)) return false;
    if (type == static_cast<uint8_t>(ValueType::kNumber)) {
      if (in.size() < 10) return false;
      const int distance = static_cast<int>(GetBig(in.data() + 8, 2)) - kNoDistance;
      if (distance < -kMaxDistance || distance > kMaxDistance) return false;
      ValueRef v;
      if (!NumberOf(FromOrderedBits(GetBig(in.data(), 8)), distance, &v)) return false;
      // One encoding per value: an integral double in int64's range is an integer.
      std::string again;
      EncodeValue(v, &again);
      if (std::string_view(again).substr(1) != in.substr(0, 10)) return false;
      in.remove_prefix(10);
    } else if (type == static_cast<uint8_t>(ValueType::kString) ||
               type == static_cast<uint8_t>(ValueType::kRaw)) {
      bool escaped;
      const size_t end = StringEnd(in, &escaped);
      if (end == std::string_view::npos) return false;
      // An object's or array's text is JSON (records write it as it is); JSON has no 0x00.
      if (type == static_cast<uint8_t>(ValueType::kRaw) && (escaped || !IsJsonText(in.substr(0, end))))
        return false;
      in.remove_prefix(end + 1);
    }
  }
  return true;
}

}  // namespace

bool IsEncodedValues(std::string_view bytes) {
  size_t count;
  return CountEncodedValues(bytes, &count);
}

bool IsEncodedKey(std::string_view bytes, size_t fields) {
  size_t count;
  return CountEncodedValues(bytes, &count) && count == fields;
}

ValueRef DecodeValue(std::string_view* in, std::string* scratch) {
  ValueRef v;
  v.type = static_cast<ValueType>((*in)[0]);
  in->remove_prefix(1);
  if (v.type == ValueType::kNumber) {
    const int distance = static_cast<int>(GetBig(in->data() + 8, 2)) - kNoDistance;
    NumberOf(FromOrderedBits(GetBig(in->data(), 8)), distance, &v);
    in->remove_prefix(10);
  } else if (v.type == ValueType::kString || v.type == ValueType::kRaw) {
    bool escaped;
    const size_t end = StringEnd(*in, &escaped);
    if (!escaped) {
      v.s = in->substr(0, end);
    } else {
      scratch->clear();
      for (size_t i = 0; i < end; ++i) {
        scratch->push_back((*in)[i]);
        if ((*in)[i] == 0) ++i;  // the 0xFF after it
      }
      v.s = *scratch;
    }
    in->remove_prefix(end + 1);
  }
  return v;
}

}  // namespace logtide
