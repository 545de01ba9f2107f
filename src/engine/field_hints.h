// Hints for a field that no event had (most likely misspelled): the closest field some events
// do have, or a list of the fields they have.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace logtide {

class FieldHints {
 public:
  // Reads the fields (and the objects holding them) of `lines`, JSON objects; a line that is
  // not one adds nothing.
  explicit FieldHints(const std::vector<std::string>& lines);

  // Returns "; did you mean P?" for the field of the lines closest to `field` (a canonical
  // path) by edit distance of their names, when it is within max(2, a third of the name);
  // else "; the events have P, Q, ..." (at most eight, in path order); "" when the lines have
  // no field.
  std::string For(const std::string& field) const;
  // Returns "; the lines have P, a time-like field: --time P" for the first field of the lines
  // (other than `field`) named as event times commonly are (@timestamp, timestamp, time, ts,
  // datetime, ...: the name, in any case), in that order of names; "" when none is.
  std::string TimeLike(const std::string& field) const;

 private:
  std::set<std::string> have_;  // canonical paths
};

// A path as a message shows it: "req.method", or as an expression writes it (."log.level").
std::string ShownPath(const std::string& path);

}  // namespace logtide
