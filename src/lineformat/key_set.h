// The top-level keys a query reads: a converted line's object holds only those members, so a
// field the query never reads costs its scan, not its JSON text and its parse.
#pragma once

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace logtide {

class KeySet {
 public:
  // Every key (the default): nothing is left out.
  KeySet() = default;
  // Only `keys` (the keys as they are, unescaped).
  explicit KeySet(std::vector<std::string> keys) : all_(false), keys_(std::move(keys)) {}

  bool all() const { return all_; }
  bool Has(std::string_view key) const {
    if (all_) return true;
    // A query reads a few keys: comparing sizes first is faster than hashing.
    for (const std::string& k : keys_) {
      if (k.size() == key.size() && std::memcmp(k.data(), key.data(), key.size()) == 0) return true;
    }
    return false;
  }

 private:
  bool all_ = true;
  std::vector<std::string> keys_;
};

}  // namespace logtide
