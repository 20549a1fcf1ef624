import PredicateDSL

/// A snapshot's keys as a record's keyed container: each key an attribute
/// (read as the Swift type asked for) or a relationship (read as object
/// identifiers).
struct RecordKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let snapshot: ObjectSnapshot
  var codingPath: [any CodingKey] { [] }

  var allKeys: [Key] { snapshot.keys.compactMap { Key(stringValue: $0) } }

  func contains(_ key: Key) -> Bool { snapshot.layout.slot(key.stringValue) != nil }

  /// `Person.age`.
  private func place(_ key: Key) -> String { "\(snapshot.entityName).\(key.stringValue)" }

  /// The key's property, or an error naming the key and what was meant.
  private func property(_ key: Key) throws(ObjectGraphError) -> PropertyValue {
    guard let property = snapshot.property(key.stringValue) else {
      throw RecordDecoder.unknownKey(key.stringValue, of: snapshot.entityName, keys: snapshot.keys)
    }
    return property
  }

  /// The key's attribute value, not nil.
  private func value<T>(_ key: Key, as type: T.Type) throws(ObjectGraphError) -> FilterValue {
    switch try property(key) {
    case .attribute(.null):
      throw RecordDecoder.error(place(key), "nil cannot be read as \(T.self); declare it \(T.self)?")
    case .attribute(let value): return value
    case .relationship(let targets): throw relationshipMismatch(key, targets, T.self)
    }
  }

  private func relationshipMismatch<T>(_ key: Key, _ targets: RelationshipTargets, _ type: T.Type) -> ObjectGraphError {
    switch targets {
    case .toOne: RecordDecoder.error(place(key), "a to-one relationship is read as ObjectID?, not \(T.self)")
    case .toMany:
      RecordDecoder.error(place(key), "a to-many relationship is read as [ObjectID] or Set<ObjectID>, not \(T.self)")
    }
  }

  private func convert<T>(
    _ key: Key, _ body: (FilterValue) throws(RecordValue.Mismatch) -> T
  ) throws(ObjectGraphError) -> T {
    let stored = try value(key, as: T.self)
    do {
      return try body(stored)
    } catch {
      throw RecordDecoder.error(place(key), error.reason)
    }
  }

  func decodeNil(forKey key: Key) throws -> Bool {
    switch try property(key) {
    case .attribute(let value): value == .null
    case .relationship(.toOne(let id)): id == nil
    case .relationship(.toMany): false
    }
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
    try convert(key) { value throws(RecordValue.Mismatch) in
      guard case .bool(let flag) = value else {
        throw RecordValue.Mismatch("\(RecordValue.describe(value)) cannot be read as Bool")
      }
      return flag
    }
  }

  func decode(_ type: String.Type, forKey key: Key) throws -> String {
    try convert(key) { value throws(RecordValue.Mismatch) in
      guard case .string(let text) = value else {
        throw RecordValue.Mismatch("\(RecordValue.describe(value)) cannot be read as String")
      }
      return text
    }
  }

  func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
    try convert(key) { value throws(RecordValue.Mismatch) in try RecordValue.double(from: value, as: "Double") }
  }

  func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
    try convert(key) { value throws(RecordValue.Mismatch) in Float(try RecordValue.double(from: value, as: "Float")) }
  }

  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }

  private func integer<T: FixedWidthInteger>(_ key: Key) throws(ObjectGraphError) -> T {
    try convert(key) { value throws(RecordValue.Mismatch) in try RecordValue.integer(T.self, from: value) }
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    if case .relationship(let targets) = try property(key) {
      switch (type, targets) {
      case (is ObjectID.Type, .toOne(let id?)): return id as! T
      case (is ObjectID.Type, .toOne(nil)):
        throw RecordDecoder.error(place(key), "nil cannot be read as ObjectID; declare it ObjectID?")
      case (is [ObjectID].Type, .toMany): return targets.objectIDs as! T
      case (is Set<ObjectID>.Type, .toMany(let ids)): return ids as! T
      default: throw relationshipMismatch(key, targets, T.self)
      }
    }
    let stored = try value(key, as: T.self)
    do {
      if let value = try RecordValue.foundationValue(type, from: stored) { return value }
    } catch {
      throw RecordDecoder.error(place(key), error.reason)
    }
    return try T(from: RecordValueDecoder(value: stored, place: place(key)))
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    throw RecordDecoder.error(place(key), "an attribute holds one value, not a nested record")
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    throw RecordDecoder.error(place(key), "an attribute holds one value, not an array")
  }

  func superDecoder() throws -> any Decoder { RecordDecoder(snapshot: snapshot) }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    throw RecordDecoder.error(place(key), "an attribute holds one value, not a nested record")
  }
}
