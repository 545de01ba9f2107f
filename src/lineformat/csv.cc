#include "lineformat/csv.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <atomic>

namespace logtide {

std::string CsvFieldError(std::string_view what, size_t field, size_t byte) {
  return fmt::format("field {} (from byte {}) {}", field, byte, what);
}

namespace {

// Appends a quoted field's text with each '""' as one '"'.
void Unquote(std::string_view text, std::string* out) {
  for (size_t i = 0; i < text.size(); ++i) {
    out->push_back(text[i]);
    if (text[i] == '"') ++i;  // the second of the pair
  }
}

}  // namespace

CsvHeader::CsvHeader(std::string_view line, char sep) : sep_(sep) {
  if (line.size() >= 3 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
  std::vector<std::string> names;
  size_t count = 0;
  Status s = SplitCsvRow(line, sep, &count, [&](std::string_view text, bool quoted) {
    names.emplace_back();
    if (quoted) {
      Unquote(text, &names.back());
    } else {
      names.back().assign(text);
    }
  });
  if (!s.ok()) {
    error_ = fmt::format("the header (line 1) is not a {} row: {}", sep == ',' ? "CSV" : "TSV",
                         s.message());
    return;
  }
  // Its names are keys of every row's object, read or not: bytes that are no UTF-8 make every
  // row bad, as the same object is in an NDJSON line.
  if (!simdjson::validate_utf8(line.data(), line.size())) {
    error_ = "the header (line 1) is not valid UTF-8";
    return;
  }
  plain_ = names;
  JsonBuilder b;
  for (const std::string& name : names) {
    b.Begin(6 * name.size() + 4);
    b.String(name);
    std::string_view key = b.Finish();
    key.remove_prefix(1);  // '{'
    key.remove_suffix(1);  // '}'
    keys_.emplace_back(names_.size(), key.size() + 1);
    names_.append(key);
    names_.push_back(':');
  }
}

CsvHeader CsvHeader::Unreadable(std::string reason, char sep) {
  CsvHeader h;
  h.sep_ = sep;
  h.error_ = std::move(reason);
  return h;
}

uint64_t CsvHeader::NextId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

std::vector<uint8_t> CsvHeader::Columns(const KeySet& keys) const {
  std::vector<uint8_t> out(plain_.size());
  for (size_t i = 0; i < plain_.size(); ++i) out[i] = keys.Has(plain_[i]) ? 1 : 0;
  return out;
}

Status CsvHeader::RowToJson(std::string_view line, const std::vector<uint8_t>* columns,
                            JsonBuilder* out) const {
  if (!error_.empty()) return Status::DataError(BadKind::kNotJson, error_);
  // The keys, and at most 6 bytes per byte of the row with a comma and null or quotes per field.
  out->Begin(names_.size() + 6 * line.size() + 6 * keys_.size() + 8);
  size_t k = 0;
  size_t count = 0;
  Status s = SplitCsvRow(line, sep_, &count, [&](std::string_view text, bool quoted) {
    if (k == keys_.size()) return;  // one field too many: counted, refused below
    if (columns != nullptr && !(*columns)[k]) {
      ++k;
      return;
    }
    out->Comma();
    out->Raw(std::string_view(names_.data() + keys_[k].first, keys_[k].second));
    ++k;
    if (quoted) {
      out->Char('"');
      size_t from = 0;  // each '""' is written as one escaped '"'
      for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '"') continue;
        out->Escaped(text.substr(from, i + 1 - from));
        from = ++i + 1;
      }
      if (from < text.size()) out->Escaped(text.substr(from));
      out->Char('"');
    } else if (text.empty()) {
      out->Raw("null");
    } else {
      out->Scalar(text);
    }
  });
  if (!s.ok()) return s;
  if (count != keys_.size()) {
    return Status::DataError(BadKind::kNotJson,
                             fmt::format("the row has {} field{}, the header (line 1) has {}",
                                         count, count == 1 ? "" : "s", keys_.size()));
  }
  return Status::Ok();
}

}  // namespace logtide
