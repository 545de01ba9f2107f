// The two directions of a StateCodec (util/state_codec.h) for savepoints: a description run
// over bytes writes them as a JSON object (JsonFromBytes), and run over that object writes the
// same bytes again (BytesFromJson). The JSON of each field:
//   U8, U32, I32, I64, U64, Varint, OrderedI64   a JSON integer
//   Bool                                          true or false
//   F64        a number in the shortest form that reads back as the same double (-0.0 with
//              its sign), or "Infinity", "-Infinity", "NaN" (the quiet NaN, 0x7ff8000000000000)
//              or "NaN:BITS" (another NaN: its 64 bits as 16 lowercase hexadecimal digits)
//   I128       a string of decimal digits, with '-' when negative
//   Bytes      a string when they are UTF-8, else {"hex":HEX}
//   Hex        a string of lowercase hexadecimal digit pairs
//   Value      the JSON value: null, true, false, a number, a string; an object or array as
//              {"json":TEXT}, TEXT its JSON text as the state holds it; a number that is not
//              finite (a derived key's) as {"number":F64}, F64's text of it
//   Key, KeyBytes   an array of such values
//   Object     an object; List, ListOf  an array
#pragma once

#include <simdjson.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "util/bytes.h"
#include "util/state_codec.h"
#include "util/status.h"

namespace logtide {

// Reads `bytes` as the description says, appending the object to *json.
class JsonFromBytes final : public StateCodec {
 public:
  JsonFromBytes(std::string_view bytes, std::string* json);
  // After the description: Corruption with the reason when the bytes were not of its form, or
  // longer. Closes the object.
  Status Finish();
  // Every group key (Key, KeyBytes) must hold `n` values, the job's --by keys.
  void set_key_values(size_t n) { key_values_ = n; }

  uint64_t U8(std::string_view name) override;
  bool Bool(std::string_view name) override;
  uint64_t U32(std::string_view name) override;
  int64_t I32(std::string_view name) override;
  int64_t I64(std::string_view name) override;
  uint64_t U64(std::string_view name) override;
  void F64(std::string_view name) override;
  void I128(std::string_view name) override;
  uint64_t Varint(std::string_view name) override;
  int64_t OrderedI64(std::string_view name) override;
  std::string_view Bytes(std::string_view name) override;
  void KeyBytes(std::string_view name) override;
  void Value(std::string_view name) override;
  void Hex(std::string_view name, uint64_t n) override;
  void Key(std::string_view name) override;
  void Object(std::string_view name) override;
  uint64_t List(std::string_view name) override;
  void ListOf(std::string_view name, uint64_t n) override;
  void End() override;
  bool Has(std::string_view name) override;
  void Fail(std::string_view reason) override;
  bool ok() const override { return ok_; }

 private:
  // Starts a field: its name inside an object, a comma after an earlier one. False once failed.
  bool Field(std::string_view name);
  // Fails unless the bytes read so far are whole.
  bool Read(std::string_view what);
  // Writes an integer field just read as `v`; returns it (0 once failed).
  template <class T>
  T Integer(std::string_view name, T v);
  // Appends the values of a group key's bytes as a JSON array.
  void AppendKey(std::string_view name, std::string_view key);

  static constexpr size_t kAnyKeyValues = SIZE_MAX;
  size_t key_values_ = kAnyKeyValues;
  ByteReader r_;
  std::string* json_;
  struct Open {
    bool first;   // no field written in it yet
    char closer;  // '}' or ']'
  };
  std::vector<Open> open_;  // the objects and arrays written and not yet ended
  bool ok_ = true;
  std::string error_;
  std::string scratch_;
};

// Reads the object `root` as the description says, appending the bytes to *bytes.
class BytesFromJson final : public StateCodec {
 public:
  BytesFromJson(simdjson::dom::object root, std::string* bytes);
  // After the description: Corruption with the reason and the field's path when the object
  // was not of its form, or held other fields.
  Status Finish();
  // Every group key (Key, KeyBytes) must hold `n` values, the job's --by keys.
  void set_key_values(size_t n) { key_values_ = n; }

  uint64_t U8(std::string_view name) override;
  bool Bool(std::string_view name) override;
  uint64_t U32(std::string_view name) override;
  int64_t I32(std::string_view name) override;
  int64_t I64(std::string_view name) override;
  uint64_t U64(std::string_view name) override;
  void F64(std::string_view name) override;
  void I128(std::string_view name) override;
  uint64_t Varint(std::string_view name) override;
  int64_t OrderedI64(std::string_view name) override;
  std::string_view Bytes(std::string_view name) override;
  void KeyBytes(std::string_view name) override;
  void Value(std::string_view name) override;
  void Hex(std::string_view name, uint64_t n) override;
  void Key(std::string_view name) override;
  void Object(std::string_view name) override;
  uint64_t List(std::string_view name) override;
  void ListOf(std::string_view name, uint64_t n) override;
  void End() override;
  bool Has(std::string_view name) override;
  void Fail(std::string_view reason) override;
  bool ok() const override { return ok_; }

 private:
  struct Frame {
    std::string name;  // for messages: the field's name, or its index in an array
    bool is_array = false;
    simdjson::dom::object object;
    simdjson::dom::array array;
    simdjson::dom::array::iterator next;  // the array's next element
    size_t used = 0;  // fields read from the object, or elements from the array
    std::vector<std::string_view> read;  // the names of the fields read from the object
  };
  // Stops with `reason`, a message of its own (Fail names the field read last).
  void Refuse(std::string reason);
  // Why the frame holds more than its form read: the field it does not have, or given twice.
  std::string Extra(const Frame& f) const;
  // The next field's element: the object's `name`, or the array's next element.
  bool Get(std::string_view name, simdjson::dom::element* e);
  bool Uint(std::string_view name, uint64_t max, uint64_t* v);
  bool Int(std::string_view name, int64_t min, int64_t max, int64_t* v);
  void Open(std::string_view name, bool is_array, uint64_t* n);
  // Appends the bytes of the key in array `e` (the field Get read last) to *out.
  void EncodeKey(simdjson::dom::element e, std::string* out);
  std::string Path(std::string_view name) const;

  std::string* bytes_;
  ByteWriter w_;
  std::vector<Frame> frames_;
  std::string field_;  // the path of the field Get read last, for messages
  std::string hex_bytes_;  // the bytes of a {"hex":HEX} Bytes read last
  static constexpr size_t kAnyKeyValues = SIZE_MAX;
  size_t key_values_ = kAnyKeyValues;
  bool ok_ = true;
  std::string error_;
};

// Why `obj` holds more fields than the names in `read`: the first field not among them
// ("is not a field"), or one given twice ("given twice"), in *name; false when neither.
bool ExtraField(simdjson::dom::object obj, const std::vector<std::string_view>& read,
                std::string_view* name, bool* twice);

// Appends the text of `bytes` as `describe` describes them to *json, checked to read back as
// the same bytes: Corruption with the reason when they are not of the form or do not read back.
// With `key_values`, every group key in them must hold that many values.
Status DescribeAsJson(std::string_view bytes, const std::function<void(StateCodec*)>& describe,
                      simdjson::dom::parser* parser, std::string* json,
                      size_t key_values = SIZE_MAX);

}  // namespace logtide
