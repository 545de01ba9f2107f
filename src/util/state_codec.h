// A description of a persisted byte form (util/bytes.h), field by field, with names: what a
// savepoint (state/savepoint.h) writes as text instead of the bytes. A component describes one
// of its forms once, as a function calling these in the order ByteWriter writes the fields;
// the same description then turns bytes into JSON and JSON back into the same bytes, in
// whichever direction the codec runs (state/savepoint_codec.h). Each call names one field
// ("" inside a list), and returns the value where the description branches or counts on it:
// read from the bytes in one direction, from the text in the other. A codec that met a field
// it cannot read stops reading (every later value is zero) and says why itself.
#pragma once

#include <cstdint>
#include <string_view>

namespace logtide {

class StateCodec {
 public:
  virtual ~StateCodec() = default;

  // Fixed-width fields (ByteWriter's U8, U32, I64, U64, F64, I128; Varint). Bool is a U8 of 0
  // or 1; I32 is a U32 holding a signed value. I128 is a JSON string of decimal digits, F64 a
  // JSON number or a string for the others (state/savepoint_codec.h).
  virtual uint64_t U8(std::string_view name) = 0;
  virtual bool Bool(std::string_view name) = 0;
  virtual uint64_t U32(std::string_view name) = 0;
  virtual int64_t I32(std::string_view name) = 0;
  virtual int64_t I64(std::string_view name) = 0;
  virtual uint64_t U64(std::string_view name) = 0;
  virtual void F64(std::string_view name) = 0;
  virtual void I128(std::string_view name) = 0;
  virtual uint64_t Varint(std::string_view name) = 0;
  // An i64 written big-endian with its sign bit flipped (so that keys sort by it).
  virtual int64_t OrderedI64(std::string_view name) = 0;
  // ByteWriter::Bytes: a JSON string when they are UTF-8 (as text is), else {"hex":HEX}.
  // Returns them (valid until the next call; empty once failed).
  virtual std::string_view Bytes(std::string_view name) = 0;
  // ByteWriter::Bytes holding a group key (as Key): a JSON array of values.
  virtual void KeyBytes(std::string_view name) = 0;
  // ByteWriter::Bytes holding one EncodeValue (json/value.h): the value as JSON.
  virtual void Value(std::string_view name) = 0;
  // `n` raw bytes: a string of 2n lowercase hexadecimal digits.
  virtual void Hex(std::string_view name, uint64_t n) = 0;
  // Every byte left: a group key, EncodeValue outputs back to back: a JSON array of values.
  virtual void Key(std::string_view name) = 0;

  // A JSON object of the fields described until End.
  virtual void Object(std::string_view name) = 0;
  // A JSON array of the fields described until End (each named ""): List of a U32 count
  // before them, which it returns; ListOf of `n` known from an earlier field.
  virtual uint64_t List(std::string_view name) = 0;
  virtual void ListOf(std::string_view name, uint64_t n) = 0;
  virtual void End() = 0;

  // Whether an optional last field follows: bytes are left, or the object has `name`.
  virtual bool Has(std::string_view name) = 0;
  // Stops the codec: the form is not one this description reads (a version or form byte).
  virtual void Fail(std::string_view reason) = 0;
  virtual bool ok() const = 0;
};

}  // namespace logtide
