#include "json/number_reader.h"

#include <charconv>

#include "json/padding.h"

namespace logtide {

namespace od = simdjson::ondemand;

bool JsonNumberReader::ReadSlow(const uint8_t* s, const uint8_t* e, bool integer,
                                ValueRef* out) {
  copy_.assign(reinterpret_cast<const char*>(s), static_cast<size_t>(e - s));
  const size_t size = copy_.size();
  copy_.append(kJsonPadding, ' ');
  od::document doc;
  if (parser_.iterate(copy_.data(), size, copy_.size()).get(doc)) return false;
  if (!integer) {
    // Not get_number(): in simdjson 3.0.1 it gives 0 for decimals of more than 19 digits.
    double d;
    if (doc.get_double().get(d)) return false;
    *out = ValueRef::Number(d);
    return true;
  }
  od::number num;
  if (doc.get_number().get(num)) {
    // An integer beyond 64 bits, which simdjson 3.0.1 refuses (its grammar was checked by
    // Read): the nearest double, as for one in [2^63, 2^64). None past the largest.
    double d;
    const auto r = std::from_chars(copy_.data(), copy_.data() + size, d);
    if (r.ec != std::errc() || r.ptr != copy_.data() + size) return false;
    *out = ValueRef::Number(d);
    return true;
  }
  if (num.get_number_type() == od::number_type::signed_integer) {
    *out = ValueRef::Int(num.get_int64());
  } else if (num.get_number_type() == od::number_type::unsigned_integer) {
    *out = ValueRef::Number(static_cast<double>(num.get_uint64()));
  } else {
    return false;
  }
  return true;
}

}  // namespace logtide
