// Test data: gzip bytes made with zlib, another implementation than the ISA-L that reads them.
#pragma once

#include <zlib.h>

#include <catch2/catch.hpp>
#include <string>

namespace logtide {

// Returns `text` as one gzip member.
inline std::string Gzip(const std::string& text) {
  z_stream z = {};
  REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, text.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace logtide
