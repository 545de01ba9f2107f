#include "inspect.h"

#include <fmt/format.h>

#include <absl/container/flat_hash_set.h>

#include <algorithm>
#include <array>
#include <vector>

#include "engine/counters.h"
#include "input/input_set.h"
#include "json/json_text.h"
#include "keys/key_group.h"
#include "output/output_set.h"
#include "state/state_store.h"
#include "time/timestamp.h"
#include "util/bytes.h"
#include "watermark/input_times.h"
#include "watermark/watermark.h"
#include "window/window_operator.h"

namespace logtide {
namespace {

// The "counters" section as JSON: every counter the job keeps, in the order of --stats's "job"
// object (ignored_values as a list, in the order of the query's aggregates). The counters a
// section of an earlier version did not keep are null: not counted by the logtide that wrote it.
std::string CountersJson(const SavedCounters& c) {
  const EngineStats& s = c.stats;
  std::string j = fmt::format("{{\"lines\":{},\"events\":{},\"bad_lines\":{},\"late_events\":{}",
                              s.lines, s.events, s.bad_lines, s.late_events);
  if (c.version >= 3) {
    j += fmt::format(",\"partly_late_events\":{},\"missed_windows\":{}", s.partly_late_events,
                     s.missed_windows);
  } else {
    j += ",\"partly_late_events\":null,\"missed_windows\":null";
  }
  j += fmt::format(",\"windows_emitted\":{},\"ignored_values\":[", s.windows_emitted);
  for (size_t i = 0; i < s.ignored_values.size(); ++i)
    j += fmt::format("{}{}", i == 0 ? "" : ",", s.ignored_values[i]);
  j += fmt::format("],\"filtered\":{}}}", s.filtered);
  return j;
}

// The ranges of key groups `logtide inspect` sums the state over: those of 16 threads, the
// most the groups are sized for (256 each).
constexpr uint32_t kInspectThreads = 16;

// "key_groups": the live window rows of a state, summed per key group and per range of
// kInspectThreads threads as they are read (Add): the keys, the state entries (a pane or a
// session of a key) and the rows' bytes; the skew (the largest range's entries over the mean:
// 1 is even, kInspectThreads all in one); the largest group.
class KeyGroupSums {
 public:
  // `sessions`: the rows are a session operator's (one row per key).
  void Add(bool sessions, RowSource::Row row) {
    const auto [k, v] = row;
    // A pane's row is its start (8 bytes) and the key; a key's sessions are one row.
    if (!sessions && k.size() < 8) return;
    const std::string_view key = sessions ? k : k.substr(8);
    Sum& g = groups_[KeyGroupOf(key)];
    if (sessions || seen_.insert(std::string(key)).second) ++g.keys;
    if (sessions) {
      ByteReader r(v);
      g.entries += r.U32();
    } else {
      ++g.entries;
    }
    g.bytes += k.size() + v.size();
  }
  void AppendJson(std::string* j) const;

 private:
  struct Sum {
    uint64_t keys = 0, entries = 0, bytes = 0;
  };
  std::vector<Sum> groups_ = std::vector<Sum>(kKeyGroups);
  absl::flat_hash_set<std::string> seen_;  // the keys of panes: a key has a row per pane
};

void KeyGroupSums::AppendJson(std::string* j) const {
  const std::vector<Sum>& groups = groups_;
  std::array<Sum, kInspectThreads> ranges{};
  uint32_t largest = 0;
  for (uint32_t g = 0; g < kKeyGroups; ++g) {
    Sum& r = ranges[WorkerOfGroup(g, kInspectThreads)];
    r.keys += groups[g].keys;
    r.entries += groups[g].entries;
    r.bytes += groups[g].bytes;
    if (groups[g].entries > groups[largest].entries) largest = g;
  }
  auto sum = [](const Sum& x) {
    return fmt::format("\"keys\":{},\"entries\":{},\"bytes\":{}", x.keys, x.entries, x.bytes);
  };
  fmt::format_to(std::back_inserter(*j), ",\"key_groups\":{{\"groups\":{},\"threads\":{},\"ranges\":[",
                 kKeyGroups, kInspectThreads);
  uint64_t total = 0, most = 0;
  for (uint32_t w = 0; w < kInspectThreads; ++w) {
    const KeyGroupRange r = GroupsOfWorker(w, kInspectThreads);
    fmt::format_to(std::back_inserter(*j), "{}{{\"first\":{},\"last\":{},{}}}", w == 0 ? "" : ",",
                   r.first, r.last - 1, sum(ranges[w]));
    total += ranges[w].entries;
    most = std::max(most, ranges[w].entries);
  }
  *j += "],\"skew\":";
  *j += total == 0 ? std::string("null")
                   : fmt::format("{:.2f}", static_cast<double>(most) * kInspectThreads /
                                               static_cast<double>(total));
  fmt::format_to(std::back_inserter(*j), ",\"largest_group\":{{\"group\":{},{}}}}}", largest,
                 sum(groups[largest]));
}

}  // namespace

Status InspectState(const std::string& path, std::string* json) {
  std::string query;
  Checkpoint cp;
  KeyGroupSums groups;
  // The query is read before the rows; its window spec is its first line.
  Status s = StateStore::Read(path, &query, &cp, [&](RowSource::Row row) {
    groups.Add(query.rfind("window=session", 0) == 0, row);
  });
  if (!s.ok()) return s;
  std::vector<InputPosition> inputs;
  std::vector<OutputPosition> outputs;
  const Section* in = cp.Find("inputs");
  const Section* out = cp.Find("outputs");
  // A job whose first checkpoint never committed (killed at once) has its query only.
  const bool empty = cp.checkpoints == 0 && cp.sections.empty();
  if (!empty && (in == nullptr || (in->version != 3 && in->version != InputSet::kVersion) ||
                 out == nullptr || out->version != OutputSet::kVersion)) {
    return Status::Refused(fmt::format(
        "state file {}: its inputs or outputs section is missing or in a format this version "
        "does not read",
        path));
  }
  if (!empty && (!DecodeInputPositions(in->data, in->version, &inputs) ||
                 !DecodeOutputPositions(out->data, &outputs)))
    return Status::Corruption(fmt::format("state file {}: its positions are damaged", path));
  // Since version 4 of the inputs' section, their largest event times are the watermark's.
  const Section* wm = cp.Find("watermark");
  if (!empty && in->version == InputSet::kVersion) {
    InputTimes times;
    if (wm == nullptr || wm->version != 2 || !DecodeWatermarkTimes(wm->data, &times))
      return Status::Corruption(fmt::format("state file {}: its watermark is damaged", path));
    for (InputPosition& p : inputs) p.max_time = FindInputTime(times, p.id, INT64_MIN);
  }
  // The counters from their section (the meta row "info.counters" has only the first five).
  const Section* counters = cp.Find("counters");
  SavedCounters saved;
  if (counters != nullptr && !DecodeCounters(counters->data, counters->version, &saved)) {
    return Status::Corruption(
        fmt::format("state file {}: its counters section is damaged or in a format this version "
                    "does not read",
                    path));
  }

  std::string& j = *json;
  j = "{\"query\":{";
  bool first = true;
  size_t pos = 0;
  while (!query.empty() && pos < query.size()) {
    size_t nl = query.find('\n', pos);
    std::string line = query.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    size_t eq = line.find('=');
    if (!first) j += ",";
    first = false;
    AppendJsonString(line.substr(0, eq), &j);
    j += ":";
    AppendJsonString(line.substr(eq + 1), &j);
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  j += "}";
  j += fmt::format(",\"finished\":{}", cp.finished ? "true" : "false");
  j += fmt::format(",\"checkpoints\":{}", cp.checkpoints);
  // With --tz, the zone database version the open windows' bounds were computed with: null
  // when the state predates its record, or the system did not say it.
  const Section* windows = cp.Find("windows");
  if (query.find("\ntz=") != std::string::npos && windows != nullptr) {
    SavedZoneRules zone;
    if (!DecodeSavedZoneRules(windows->data, windows->version, &zone)) {
      return Status::Corruption(fmt::format(
          "state file {}: its windows section is damaged or in a format this version does not "
          "read",
          path));
    }
    j += ",\"zone_database\":";
    if (zone.zone_db.empty()) {
      j += "null";
    } else {
      AppendJsonString(zone.zone_db, &j);
    }
  }
  for (const auto& [name, value] : cp.info) {
    j += ",";
    AppendJsonString(name, &j);
    j += ":" + (name == "counters" && counters != nullptr ? CountersJson(saved) : value);
  }
  j += ",\"inputs\":[";
  first = true;
  for (const InputPosition& p : inputs) {
    j += first ? "{" : ",{";
    first = false;
    j += "\"name\":";
    AppendJsonString(p.name, &j);
    j += ",\"kind\":";
    AppendJsonString(p.kind, &j);
    j += ",\"fingerprint\":";
    AppendJsonString(p.fingerprint, &j);
    j += fmt::format(",\"fingerprint_bytes\":{},\"dev\":{},\"inode\":{}", p.fingerprint_len, p.dev,
                     p.ino);
    j += fmt::format(",\"offset\":{},\"line\":{},\"max_event_time\":", p.offset, p.line);
    if (p.max_time == INT64_MIN) {
      j += "null";
    } else {
      std::string ts;
      AppendRfc3339(p.max_time, &ts);
      AppendJsonString(ts, &j);
    }
    j += "}";
  }
  j += "],\"outputs\":[";
  first = true;
  // Sorted by role, as before the checkpoint components.
  std::sort(outputs.begin(), outputs.end(),
            [](const OutputPosition& a, const OutputPosition& b) { return a.role < b.role; });
  for (const OutputPosition& o : outputs) {
    j += first ? "{\"role\":" : ",{\"role\":";
    first = false;
    AppendJsonString(o.role, &j);
    j += ",\"path\":";
    AppendJsonString(o.path, &j);
    j += fmt::format(",\"length\":{}}}", o.length);
  }
  j += fmt::format("],\"window_log_rows\":{},\"window_log_bytes\":{}", cp.window_log_rows,
                   cp.window_log_bytes);
  if (!empty) {
    groups.AppendJson(&j);
  } else {
    j += ",\"key_groups\":null";
  }
  j += fmt::format(
      ",\"file\":{{\"bytes\":{},\"page_size\":{},\"pages\":{},\"free_pages\":{},\"reclaims_"
      "space\":{}}}",
      cp.file.pages * cp.file.page_size, cp.file.page_size, cp.file.pages, cp.file.free_pages,
      cp.file.reclaims ? "true" : "false");
  // Read checked the binding against every row: a state that does not match it was refused.
  j += fmt::format(",\"state_format\":{},\"binding\":", cp.binding.format);
  if (cp.binding.bound) {
    j += fmt::format(
        "{{\"job\":\"{:016x}\",\"checkpoint\":{},\"sections\":{},\"window_log_rows\":{}}}",
        cp.binding.job, cp.checkpoints, cp.binding.sections, cp.window_log_rows);
  } else {
    j += "null";
  }
  j += "}";
  return Status::Ok();
}

}  // namespace logtide
