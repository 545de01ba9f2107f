// logfmt lines (ts=2024-03-31T00:00:01Z level=info msg="a b" dur=12.5), as Go and Heroku-style
// apps write them, converted into the JSON object they stand for.
//
// Grammar (bytes; ws is a space or a tab):
//   line    = *ws [ pair *( 1*ws pair ) ] *ws
//   pair    = key [ "=" [ value ] ]
//   key     = 1*( any byte but ws, "=", '"' )          ; a key does not start with '"' or '{'
//   value   = quoted / bare
//   bare    = 1*( any byte but ws )                    ; may hold "=" and '"'
//   quoted  = '"' *( any byte but '"' and '\' / escape ) '"'   ; then ws or the end
//   escape  = '\' ( '"' / '\' / "/" / "b" / "f" / "n" / "r" / "t" / "u" 4HEXDIG )
// A backslash before any other byte in a quoted value is a backslash (kept, and the byte
// after it read as usual).
//
// Typing: a bare value that is a JSON number (json_builder.h: IsJsonNumber) is that number,
// any other bare value a string; a quoted value is always a string ("12" stays "12"); key= is
// the empty string ""; a bare key with no "=" is true. Keys are the object's keys as they are:
// req.method=GET is {"req.method":"GET"}, which the path ."req.method" reads. A key given
// twice is in the object twice, read as NDJSON reads such an object.
#pragma once

#include <string_view>

#include "lineformat/json_builder.h"
#include "lineformat/key_set.h"
#include "util/status.h"

namespace logtide {

// Writes the JSON object of the logfmt line `line` into *out (Finish gives it), with the pairs
// whose key is in `keys` (the whole line is read, and refused, all the same). Errors:
// DataError (BadKind::kNotJson) naming what breaks the grammar: an unterminated quoted value, a
// closing quote followed by text, a quoted or empty key, a line that looks like JSON.
Status LogfmtToJson(std::string_view line, const KeySet& keys, JsonBuilder* out);

}  // namespace logtide
