// Reading a JSON number from its text, checking JSON's grammar, as exactly the value
// simdjson's get_double() or get_int64()/get_uint64() gives: the extractor's walk reads every
// number it keeps through one of these.
#pragma once

#include <simdjson.h>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>

#include "json/value.h"

namespace logtide {

// Reads numbers one at a time; the slow path's parser and copy are reused from number to number.
class JsonNumberReader {
 public:
  // Reads a number spelled [s, e), checking JSON's grammar. Integers of up to 18 digits are
  // read here, and decimals without exponent whose digits make at most 2^53 with at most 22
  // after the point: such a decimal is m / 10^f with both exact doubles, so the one rounding of
  // the division gives the correctly rounded value (Clinger's fast path). Other decimals go to
  // std::from_chars (correctly rounded, as simdjson) and other integers to simdjson itself, so
  // the value is always the one simdjson's get_double() or get_int64()/get_uint64() gives;
  // an integer beyond 64 bits, which simdjson 3.0.1 refuses, is the nearest double.
  __attribute__((always_inline)) bool Read(const uint8_t* s, const uint8_t* e, ValueRef* out) {
    static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                        1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const uint8_t* q = s;
    const bool negative = *q == '-';
    if (negative) ++q;
    // The byte at e (a space or the next token's first byte: a structural character or a
    // quote) stops every loop below, so they need no bound.
    auto digit = [](const uint8_t* x) { return static_cast<unsigned>(*x - '0') < 10; };
    if (!digit(q)) return false;
    uint64_t mantissa = 0;
    const uint8_t* first = q;
    if (*q == '0') {
      ++q;
    } else {
      while (digit(q)) mantissa = mantissa * 10 + (*q++ - '0');
    }
    size_t digits = static_cast<size_t>(q - first);
    size_t fraction = 0;
    bool integer = true;
    unsigned fraction_digits = 0;  // non-zero when a digit after the point is
    if (*q == '.') {
      ++q;
      if (!digit(q)) return false;
      const uint8_t* f = q;
      while (digit(q)) {
        fraction_digits |= *q - '0';
        mantissa = mantissa * 10 + (*q++ - '0');
      }
      fraction = static_cast<size_t>(q - f);
      digits += fraction;
      integer = false;
    }
    if (*q == 'e' || *q == 'E') {
      ++q;
      if (*q == '+' || *q == '-') ++q;
      if (!digit(q)) return false;
      while (digit(q)) ++q;
      integer = false;
      fraction = 23;  // not the fast path
    }
    if (q != e) return false;
    if (digits <= 18) {  // no overflow in `mantissa` (leading zeros of a fraction count too)
      if (integer) {
        const auto v = static_cast<int64_t>(mantissa);
        *out = ValueRef::Int(negative ? -v : v);
        return true;
      }
      if (fraction <= 22 && mantissa <= (uint64_t{1} << 53)) {
        const double d = static_cast<double>(mantissa) / kPow10[fraction];
        // With a non-zero digit after the point the double is not integral either: it is
        // within half its spacing, < 10^-fraction for values below 2^53 / 10^fraction, of the
        // decimal, which is at least 10^-fraction from every integer.
        *out = fraction_digits != 0 ? ValueRef::Fraction(negative ? -d : d)
                                    : ValueRef::Number(negative ? -d : d);
        return true;
      }
    }
    if (!integer) {
      double d;
      const auto r =
          std::from_chars(reinterpret_cast<const char*>(s), reinterpret_cast<const char*>(e), d);
      if (r.ec == std::errc() && r.ptr == reinterpret_cast<const char*>(e)) {
        *out = ValueRef::Number(d);
        return true;
      }
    }
    return ReadSlow(s, e, integer, out);
  }

 private:
  // Read for the numbers the fast paths leave: simdjson's On-Demand parser on a padded copy.
  bool ReadSlow(const uint8_t* s, const uint8_t* e, bool integer, ValueRef* out);

  simdjson::ondemand::parser parser_;  // integers of 19 digits or more, numbers out of range
  std::string copy_;
};

}  // namespace logtide
