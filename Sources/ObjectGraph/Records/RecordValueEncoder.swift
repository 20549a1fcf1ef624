import PredicateDSL

/// One attribute's value as an encoder, for the types inside a record that
/// write a single value: a `RawRepresentable` enum writes its raw value, a
/// wrapper type the value it wraps.
///
/// The encoder is its own single value container: it has no other form.
final class RecordValueEncoder: Encoder, SingleValueEncodingContainer {
  /// `Person.age`, for messages.
  let place: String
  /// The attribute's type, which decides how a `Decimal` is stored.
  let type: AttributeType?
  /// The value written.
  private(set) var value: FilterValue?
  /// The first thing written that an attribute cannot hold.
  private(set) var failure: ObjectGraphError?

  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(place: String, type: AttributeType?) {
    self.place = place
    self.type = type
  }

  private func fail(_ reason: String) {
    if failure == nil { failure = RecordDecoder.error(place, reason) }
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    fail("an attribute holds one value, not a nested record")
    return KeyedEncodingContainer(RecordKeyedEncodingContainer<Key>(encoder: nil))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    fail("an attribute holds one value, not an array")
    return RejectedUnkeyedContainer()
  }

  func singleValueContainer() -> any SingleValueEncodingContainer { self }

  func encodeNil() { value = .null }
  func encode(_ value: Bool) { self.value = .bool(value) }
  func encode(_ value: String) { self.value = .string(value) }
  func encode(_ value: Double) { self.value = .double(value) }
  func encode(_ value: Float) { self.value = .double(RecordValue.double(writing: value)) }
  func encode(_ value: Int) { integer(value) }
  func encode(_ value: Int8) { integer(value) }
  func encode(_ value: Int16) { integer(value) }
  func encode(_ value: Int32) { integer(value) }
  func encode(_ value: Int64) { integer(value) }
  func encode(_ value: UInt) { integer(value) }
  func encode(_ value: UInt8) { integer(value) }
  func encode(_ value: UInt16) { integer(value) }
  func encode(_ value: UInt32) { integer(value) }
  func encode(_ value: UInt64) { integer(value) }

  private func integer(_ number: some FixedWidthInteger) {
    guard let exact = Int64(exactly: number) else {
      fail("\(number) does not fit the 64-bit integers an attribute holds")
      return
    }
    value = .int(exact)
  }

  func encode<T: Encodable>(_ value: T) throws {
    if let stored = RecordValue.storedValue(of: value, for: type) {
      self.value = stored
    } else {
      try value.encode(to: self)
    }
  }
}
