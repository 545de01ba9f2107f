#include "json/canonical_json.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include "json/json_text.h"
#include "json/value.h"

namespace logtide {

// Strings: AppendJsonString, which escapes only '"', '\' and control characters (the DOM
// parser's strings are valid UTF-8, so none is replaced).
void AppendCanonicalJson(const simdjson::dom::element& e, std::string* out) {
  switch (e.type()) {
    case simdjson::dom::element_type::OBJECT: {
      std::vector<std::pair<std::string_view, simdjson::dom::element>> fields;
      for (auto field : simdjson::dom::object(e)) fields.emplace_back(field.key, field.value);
      // Stable: of equal keys, the last one stays last, and is the one kept.
      std::stable_sort(fields.begin(), fields.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      out->push_back('{');
      bool first = true;
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i + 1 < fields.size() && fields[i + 1].first == fields[i].first) continue;
        if (!first) out->push_back(',');
        first = false;
        AppendJsonString(fields[i].first, out);
        out->push_back(':');
        AppendCanonicalJson(fields[i].second, out);
      }
      out->push_back('}');
      return;
    }
    case simdjson::dom::element_type::ARRAY: {
      out->push_back('[');
      bool first = true;
      for (simdjson::dom::element x : simdjson::dom::array(e)) {
        if (!first) out->push_back(',');
        first = false;
        AppendCanonicalJson(x, out);
      }
      out->push_back(']');
      return;
    }
    case simdjson::dom::element_type::STRING:
      AppendJsonString(std::string_view(e), out);
      return;
    case simdjson::dom::element_type::INT64:
      fmt::format_to(std::back_inserter(*out), "{}", int64_t(e));
      return;
    case simdjson::dom::element_type::UINT64:
    case simdjson::dom::element_type::DOUBLE: {
      const double d = e.type() == simdjson::dom::element_type::DOUBLE
                           ? double(e)
                           : static_cast<double>(uint64_t(e));
      const ValueRef v = ValueRef::Number(d);
      if (v.is_int) {
        fmt::format_to(std::back_inserter(*out), "{}", v.i);
      } else {
        fmt::format_to(std::back_inserter(*out), "{}", d);
      }
      return;
    }
    case simdjson::dom::element_type::BOOL:
      out->append(bool(e) ? "true" : "false");
      return;
    case simdjson::dom::element_type::NULL_VALUE:
      out->append("null");
      return;
  }
}

}  // namespace logtide
