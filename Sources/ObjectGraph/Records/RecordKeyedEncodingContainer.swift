import PredicateDSL

/// An entity's keys as a record's keyed container: attributes take Swift
/// values, relationships object identifiers. A nil writes nil (an optional
/// is written when it is nil too, so that an update clears it).
///
/// A container without an encoder keeps nothing: it is what a form an
/// object does not have gets, once its failure is noted.
struct RecordKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoder: RecordEncoder?
  var codingPath: [any CodingKey] { [] }

  /// `Person.age`.
  private func place(_ key: Key) -> String { "\(encoder?.layout.name ?? "").\(key.stringValue)" }

  private func slot(_ key: Key) -> PropertySlot? {
    guard let encoder else { return nil }
    guard let slot = encoder.layout.slot(key.stringValue) else {
      encoder.fail(RecordDecoder.unknownKey(key.stringValue, of: encoder.layout.name, keys: encoder.layout.keys))
      return nil
    }
    return slot
  }

  private func store(_ value: FilterValue, _ key: Key) { store(key) { _ in value } }

  /// Stores the value `value` makes for the key's attribute (given its
  /// description), after one lookup of the key.
  private func store(_ key: Key, _ value: (AttributeDescription) -> FilterValue) {
    guard let encoder, let slot = slot(key) else { return }
    guard case .attribute(let index) = slot else {
      encoder.fail(
        RecordDecoder.error(
          place(key), "a relationship is written as ObjectID? (to-one) or [ObjectID] (to-many), not a value"))
      return
    }
    encoder.values[key.stringValue] = value(encoder.layout.attributes[index])
  }

  mutating func encodeNil(forKey key: Key) {
    guard let encoder, let slot = slot(key) else { return }
    switch slot {
    case .attribute: encoder.values[key.stringValue] = .null
    case .relationship: encoder.targets[key.stringValue] = []
    }
  }

  mutating func encode(_ value: Bool, forKey key: Key) { store(.bool(value), key) }
  mutating func encode(_ value: String, forKey key: Key) { store(.string(value), key) }
  mutating func encode(_ value: Double, forKey key: Key) {
    // A whole number for an integer attribute (a `Double` property reads
    // one) goes back as the integer it was read from.
    store(key) { attribute in
      guard attribute.type == .integer, let whole = Int64(exactly: value) else { return .double(value) }
      return .int(whole)
    }
  }
  mutating func encode(_ value: Float, forKey key: Key) { encode(RecordValue.double(writing: value), forKey: key) }
  mutating func encode(_ value: Int, forKey key: Key) { integer(value, key) }
  mutating func encode(_ value: Int8, forKey key: Key) { integer(value, key) }
  mutating func encode(_ value: Int16, forKey key: Key) { integer(value, key) }
  mutating func encode(_ value: Int32, forKey key: Key) { integer(value, key) }
  mutating func encode(_ value: Int64, forKey key: Key) { integer(value, key) }
  mutating func encode(_ value: UInt, forKey key: Key) { integer(value, key) }
  mutating func encode(_ value: UInt8, forKey key: Key) { integer(value, key) }
  mutating func encode(_ value: UInt16, forKey key: Key) { integer(value, key) }
  mutating func encode(_ value: UInt32, forKey key: Key) { integer(value, key) }
  mutating func encode(_ value: UInt64, forKey key: Key) { integer(value, key) }

  private func integer(_ value: some FixedWidthInteger, _ key: Key) {
    guard let number = Int64(exactly: value) else {
      encoder?.fail(RecordDecoder.error(place(key), "\(value) does not fit the 64-bit integers an attribute holds"))
      return
    }
    store(.int(number), key)
  }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) {
    guard let encoder, let slot = slot(key) else { return }
    switch slot {
    case .relationship:
      switch value {
      case let id as ObjectID: encoder.targets[key.stringValue] = [id]
      case let ids as [ObjectID]: encoder.targets[key.stringValue] = ids
      case let ids as Set<ObjectID>: encoder.targets[key.stringValue] = ids.sorted()
      default:
        encoder.fail(
          RecordDecoder.error(
            place(key), "a relationship is written as ObjectID? (to-one) or [ObjectID] (to-many), not \(T.self)"))
      }
    case .attribute(let index):
      let type = encoder.layout.attributes[index].type
      if let stored = RecordValue.storedValue(of: value, for: type) {
        encoder.values[key.stringValue] = stored
        return
      }
      let single = RecordValueEncoder(place: place(key), type: type)
      do {
        try value.encode(to: single)
      } catch let error as ObjectGraphError {
        encoder.fail(error)
        return
      } catch {
        encoder.fail(RecordDecoder.error(place(key), "\(T.self)'s encode(to:) threw: \(error)"))
        return
      }
      if let failure = single.failure {
        encoder.fail(failure)
      } else if let written = single.value {
        encoder.values[key.stringValue] = written
      } else {
        encoder.fail(RecordDecoder.error(place(key), "\(T.self) wrote no value"))
      }
    }
  }

  // Optionals write nil, so that updating from a record clears them.
  mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) { optional(value, key) }
  mutating func encodeIfPresent(_ value: String?, forKey key: Key) { optional(value, key) }
  mutating func encodeIfPresent(_ value: Double?, forKey key: Key) {
    if let value { encode(value, forKey: key) } else { encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent(_ value: Float?, forKey key: Key) {
    if let value { encode(value, forKey: key) } else { encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent(_ value: Int?, forKey key: Key) { optional(value, key) }
  mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) { optional(value, key) }
  mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) { optional(value, key) }
  mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) { optional(value, key) }
  mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) { optional(value, key) }
  mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) { optional(value, key) }
  mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) { optional(value, key) }
  mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) { optional(value, key) }
  mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) { optional(value, key) }
  mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) { optional(value, key) }
  mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) { optional(value, key) }

  private mutating func optional<T: Encodable>(_ value: T?, _ key: Key) {
    if let value { encode(value, forKey: key) } else { encodeNil(forKey: key) }
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    encoder?.fail(RecordDecoder.error(place(key), "an attribute holds one value, not a nested record"))
    return KeyedEncodingContainer(RecordKeyedEncodingContainer<NestedKey>(encoder: nil))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    encoder?.fail(RecordDecoder.error(place(key), "an attribute holds one value, not an array"))
    return RejectedUnkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    encoder ?? RecordValueEncoder(place: "", type: nil)
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    encoder?.fail(RecordDecoder.error(place(key), "an attribute holds one value, not a nested record"))
    return RecordValueEncoder(place: place(key), type: nil)
  }
}
