#include "json/value.h"

#include <cmath>
#include <cstring>

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

// Grammar: type byte, then for kNumber an 'i' or 'd' byte and 8 bytes, for kString and kRaw a
// 4-byte length and the bytes; nothing else for null, false, true.
void EncodeValue(const ValueRef& v, std::string* out) {
  // One resize per value (this runs for every event's key).
  const size_t at = out->size();
  if (v.type == ValueType::kNumber) {
    out->resize(at + 10);
    char* p = out->data() + at;
    p[0] = static_cast<char>(v.type);
    p[1] = v.is_int ? 'i' : 'd';
    if (v.is_int) {
      std::memcpy(p + 2, &v.i, 8);
    } else {
      std::memcpy(p + 2, &v.d, 8);
    }
  } else if (v.type == ValueType::kString || v.type == ValueType::kRaw) {
    const auto n = static_cast<uint32_t>(v.s.size());
    out->resize(at + 5 + n);
    char* p = out->data() + at;
    p[0] = static_cast<char>(v.type);
    std::memcpy(p + 1, &n, 4);
    std::memcpy(p + 5, v.s.data(), n);
  } else {
    out->push_back(static_cast<char>(v.type));
  }
}

bool IsEncodedValues(std::string_view in) {
  while (!in.empty()) {
    const auto type = static_cast<uint8_t>(in[0]);
    in.remove_prefix(1);
    if (type > static_cast<uint8_t>(ValueType::kRaw)) return false;
    if (type == static_cast<uint8_t>(ValueType::kNumber)) {
      if (in.size() < 9 || (in[0] != 'i' && in[0] != 'd')) return false;
      in.remove_prefix(9);
    } else if (type == static_cast<uint8_t>(ValueType::kString) ||
               type == static_cast<uint8_t>(ValueType::kRaw)) {
      uint32_t n;
      if (in.size() < 4) return false;
      std::memcpy(&n, in.data(), 4);
      if (in.size() - 4 < n) return false;
      in.remove_prefix(4 + n);
    }
  }
  return true;
}

ValueRef DecodeValue(std::string_view* in) {
  ValueRef v;
  v.type = static_cast<ValueType>((*in)[0]);
  in->remove_prefix(1);
  if (v.type == ValueType::kNumber) {
    v.is_int = (*in)[0] == 'i';
    if (v.is_int) {
      std::memcpy(&v.i, in->data() + 1, 8);
      v.d = static_cast<double>(v.i);
    } else {
      std::memcpy(&v.d, in->data() + 1, 8);
    }
    in->remove_prefix(9);
  } else if (v.type == ValueType::kString || v.type == ValueType::kRaw) {
    uint32_t n;
    std::memcpy(&n, in->data(), 4);
    v.s = in->substr(4, n);
    in->remove_prefix(4 + n);
  }
  return v;
}

}  // namespace logtide
