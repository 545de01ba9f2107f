#include "engine/correction_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "json/json_text.h"

namespace logtide {

namespace {

// Renders one aggregate's result as JSON text and keeps it as a number when it is one.
class Capture final : public ValueSink {
 public:
  explicit Capture(std::string* text) : text_(text) {}
  void Null() override { text_->append("null"); }
  void Int(__int128 v) override {
    AppendInt128(v, text_);
    number = static_cast<double>(v);
  }
  void Double(double v) override {
    AppendDouble(v, text_);
    number = v;
  }
  void Value(const ValueRef& v) override { AppendJsonValue(v, text_); }
  double number = std::numeric_limits<double>::quiet_NaN();

 private:
  std::string* text_;
};

}  // namespace

void CorrectionStats::Read(const WindowResult& r, Values* out) const {
  out->text.clear();
  out->numbers.clear();
  for (size_t a = 0; a < acc_->num_aggs(); ++a) {
    Capture c(&out->text);
    acc_->Result(r.slot, a, &c);
    out->text.push_back(',');
    out->numbers.push_back(c.number);
  }
}

void CorrectionStats::Observe(const std::vector<WindowResult>& results) {
  for (const WindowResult& r : results) {
    if (r.phase == RecordPhase::kEarly) continue;
    const auto id = std::make_tuple(r.start, r.end, r.key);
    if (r.phase == RecordPhase::kOnTime) {
      if (r.final) continue;  // it cannot change
      Held& h = held_[id];
      Read(r, &h.on_time);
      h.last = h.on_time;
      ++on_time_;
      continue;
    }
    auto it = held_.find(id);
    if (it == held_.end()) continue;  // no on-time record in this run
    Read(r, &it->second.last);
    if (!r.final) continue;
    Settle(it->second);
    held_.erase(it);
  }
}

void CorrectionStats::Settle(const Held& h) {
  if (h.last.text == h.on_time.text) return;
  ++corrected_;
  changes_.resize(h.on_time.numbers.size());
  for (size_t a = 0; a < h.on_time.numbers.size(); ++a) {
    const double on = h.on_time.numbers[a], last = h.last.numbers[a];
    if (std::isnan(on) || std::isnan(last) || on == 0) continue;
    changes_[a].push_back(std::fabs(last - on) / std::fabs(on));
  }
}

void CorrectionStats::Finish() {
  for (const auto& [id, h] : held_) Settle(h);
  held_.clear();
  for (std::vector<double>& c : changes_) std::sort(c.begin(), c.end());
}

void CorrectionStats::Absorb(const CorrectionStats& other) {
  on_time_ += other.on_time_;
  corrected_ += other.corrected_;
  if (changes_.size() < other.changes_.size()) changes_.resize(other.changes_.size());
  for (size_t a = 0; a < other.changes_.size(); ++a)
    changes_[a].insert(changes_[a].end(), other.changes_[a].begin(), other.changes_[a].end());
}

CorrectionStats::Change CorrectionStats::change(size_t agg) const {
  Change c;
  if (agg >= changes_.size() || changes_[agg].empty()) return c;
  const std::vector<double>& v = changes_[agg];
  const size_t n = v.size();
  c.pairs = n;
  c.median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  c.max = v.back();
  return c;
}

namespace {

std::string Percent(double v) {
  // Three significant digits, never in exponent form: 1.25%, 12.5%, 125%, 1900%.
  return v * 100 >= 1000 ? fmt::format("{:.0f}%", v * 100) : fmt::format("{:.3g}%", v * 100);
}

}  // namespace

std::string CorrectionStats::Summary(const std::vector<std::string>& names) const {
  if (corrected_ == 0) return "";
  std::string by;
  for (size_t a = 0; a < names.size(); ++a) {
    const Change c = change(a);
    if (c.pairs == 0) continue;
    by += fmt::format("{}{} by a median of {} (largest {})", by.empty() ? ": " : ", ", names[a],
                      Percent(c.median), Percent(c.max));
  }
  return fmt::format(
      "{} of {} window{} and key{} written on time {} corrected later, by late events within "
      "--lateness{}; a larger --delay makes on-time records more complete, and later, or rely "
      "on the revisions",
      corrected_, on_time_, on_time_ == 1 ? "" : "s", on_time_ == 1 ? "" : "s",
      corrected_ == 1 ? "was" : "were", by);
}

std::string CorrectionStats::StatsJson(const std::vector<std::string>& names) const {
  std::string by;
  for (size_t a = 0; a < names.size(); ++a) {
    const Change c = change(a);
    if (c.pairs == 0) continue;
    if (!by.empty()) by += ",";
    AppendJsonString(names[a], &by);
    fmt::format_to(std::back_inserter(by), ":{{\"pairs\":{},\"median\":{},\"max\":{}}}",
                   c.pairs, c.median, c.max);
  }
  return fmt::format("{{\"on_time\":{},\"corrected\":{},\"relative_change\":{{{}}}}}",
                     on_time_, corrected_, by);
}

}  // namespace logtide
