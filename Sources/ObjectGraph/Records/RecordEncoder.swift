import PredicateDSL

/// Writes a record into the values and relationship targets of its entity:
/// an `Encoder` whose keyed container is the entity's keys.
///
/// `Encoder`'s containers cannot throw when they are made, so a record that
/// asks for a form an object does not have (an unkeyed container, a nested
/// record) is noted in ``failure`` and reported when encoding ends.
final class RecordEncoder: Encoder {
  let layout: EntityLayout
  /// The attribute values the record wrote, by key.
  var values: [String: FilterValue] = [:]
  /// The relationship destinations the record wrote, by key.
  var targets: [String: [ObjectID]] = [:]
  /// The first thing the record wrote that its entity cannot hold.
  private(set) var failure: ObjectGraphError?

  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(layout: EntityLayout) { self.layout = layout }

  /// Encodes `record`: its values and targets, or the first error.
  static func encode(
    _ record: some Encodable, layout: EntityLayout
  ) throws(ObjectGraphError) -> (values: [String: FilterValue], targets: [String: [ObjectID]]) {
    let encoder = RecordEncoder(layout: layout)
    do {
      try record.encode(to: encoder)
    } catch let error as ObjectGraphError {
      throw error
    } catch {
      throw RecordDecoder.error(layout.name, "the record's encode(to:) threw: \(error)")
    }
    if let failure = encoder.failure { throw failure }
    return (encoder.values, encoder.targets)
  }

  /// Notes `error` unless an earlier one was noted.
  func fail(_ error: ObjectGraphError) {
    if failure == nil { failure = error }
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(RecordKeyedEncodingContainer<Key>(encoder: self))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    fail(RecordDecoder.error(layout.name, "a record writes an object's keys; it has no unkeyed form"))
    return RejectedUnkeyedContainer()
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    fail(RecordDecoder.error(layout.name, "a record writes an object's keys; it is not a single value"))
    return RecordValueEncoder(place: layout.name, type: nil)
  }
}

/// An unkeyed container that keeps nothing: what an encoder gives a type
/// that asks for a form an object does not have, once the failure is noted.
/// (It shares the file with the encoder, whose fallback it is.)
struct RejectedUnkeyedContainer: UnkeyedEncodingContainer {
  var codingPath: [any CodingKey] { [] }
  var count: Int { 0 }
  mutating func encodeNil() {}
  mutating func encode<T: Encodable>(_ value: T) {}
  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type
  ) -> KeyedEncodingContainer<NestedKey> {
    KeyedEncodingContainer(RecordKeyedEncodingContainer<NestedKey>(encoder: nil))
  }
  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
  mutating func superEncoder() -> any Encoder { RecordValueEncoder(place: "", type: nil) }
}
