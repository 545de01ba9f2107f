#include "keys/key_group.h"

// The header's own definitions, compiled here: a key's group is hashed each time a key is
// added to a KeyTable, and a call into the shared library cost more than the short keys' hash.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace logtide {

uint32_t KeyGroupOf(std::string_view encoded_key) {
  return static_cast<uint32_t>(XXH64(encoded_key.data(), encoded_key.size(), 0) % kKeyGroups);
}

}  // namespace logtide
