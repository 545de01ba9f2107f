#include "engine/progress.h"

#include "input/input_set.h"
#include "input/line_reader.h"

namespace logtide {

Progress InputProgress(InputSet& inputs, const std::vector<uint64_t>& read_to) {
  Progress p;
  bool sized = true;
  for (size_t i = 0; i < inputs.size(); ++i) {
    p.bytes_read += read_to[i];
    p.total_bytes += inputs.reader(i).file_size();
    sized = sized && !inputs.reader(i).compressed();
  }
  if (!sized) p.total_bytes = 0;
  return p;
}

}  // namespace logtide
