#include "keys/key_group.h"

#include <xxhash.h>

namespace logtide {

uint32_t KeyGroupOf(std::string_view encoded_key) {
  return static_cast<uint32_t>(XXH64(encoded_key.data(), encoded_key.size(), 0) % kKeyGroups);
}

}  // namespace logtide
