import PredicateDSL

/// One attribute's value as a decoder, for the types inside a record that
/// read a single value: a `RawRepresentable` enum reads its raw value, a
/// wrapper type the value it wraps.
///
/// The decoder is its own single value container: it has no other form.
struct RecordValueDecoder: Decoder, SingleValueDecodingContainer {
  /// The value, never nil (a nil is handled by the record's container).
  let value: FilterValue
  /// `Person.age`, for messages.
  let place: String
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    throw RecordDecoder.error(place, "an attribute holds one value, not a nested record")
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw RecordDecoder.error(place, "an attribute holds one value, not an array")
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

  @inline(never)
  private func failure(_ mismatch: RecordValue.Mismatch) -> ObjectGraphError {
    RecordDecoder.error(place, mismatch.reason)
  }

  func decodeNil() -> Bool { value == .null }

  func decode(_ type: Bool.Type) throws -> Bool {
    do { return try RecordValue.bool(from: value) } catch { throw failure(error) }
  }

  func decode(_ type: String.Type) throws -> String {
    do { return try RecordValue.string(from: value) } catch { throw failure(error) }
  }

  func decode(_ type: Double.Type) throws -> Double {
    do { return try RecordValue.double(from: value, as: Double.self) } catch { throw failure(error) }
  }

  func decode(_ type: Float.Type) throws -> Float {
    do { return try RecordValue.float(from: value) } catch { throw failure(error) }
  }

  func decode(_ type: Int.Type) throws -> Int { try integer() }
  func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
  func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
  func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
  func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
  func decode(_ type: UInt.Type) throws -> UInt { try integer() }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }

  private func integer<T: FixedWidthInteger>() throws(ObjectGraphError) -> T {
    do { return try RecordValue.integer(T.self, from: value) } catch { throw failure(error) }
  }

  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    if RecordValue.isFoundationType(T.self) {
      do { return try RecordValue.foundationValue(T.self, from: value) } catch { throw failure(error) }
    }
    return try T(from: self)
  }
}
