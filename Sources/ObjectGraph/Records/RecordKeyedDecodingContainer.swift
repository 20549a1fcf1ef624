import Foundation
import PredicateDSL

/// A snapshot's keys as a record's keyed container: each key an attribute
/// (read as the Swift type asked for) or a relationship (read as object
/// identifiers).
///
/// The reads avoid what makes a generic decoder slow: no closure per read,
/// no optional of a type known only at run time, and messages built only on
/// the failing path.
struct RecordKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  /// The decoder, not counted: decoders are never deallocated (see
  /// ``RecordDecoder``), and the standard library copies the container for
  /// every value it reads, which a counted reference would make two atomic
  /// operations.
  let decoder: Unmanaged<RecordDecoder>
  /// The decoder's lease when the container was made: the container reads
  /// only during it.
  let lease: UInt32
  var snapshot: ObjectSnapshot { decoder._withUnsafeGuaranteedRef { $0.snapshot(lease) } }
  var codingPath: [any CodingKey] { [] }

  var allKeys: [Key] { snapshot.keys.compactMap { Key(stringValue: $0) } }

  func contains(_ key: Key) -> Bool { snapshot.layout.slot(key.stringValue) != nil }

  /// `Person.age`.
  private func place(_ key: Key) -> String { "\(snapshot.entityName).\(key.stringValue)" }

  /// Where the key's property is in the snapshot being read. Each read
  /// locates its key once (the decoder's slot cache follows the reads).
  @inline(__always)
  private func locate(_ key: Key) -> RecordDecoder.Location {
    decoder._withUnsafeGuaranteedRef { $0.locate(key.stringValue, lease) }
  }

  /// The key's property; nil when the entity has no such key.
  @inline(__always)
  private func lookUp(_ key: Key) -> PropertyValue? { locate(key).property }

  /// The key's property at `location`, or an error naming the key and
  /// what was meant.
  @inline(__always)
  private func property(_ key: Key, at location: RecordDecoder.Location) throws(ObjectGraphError) -> PropertyValue {
    guard let property = location.property else {
      throw RecordDecoder.unknownKey(key.stringValue, of: snapshot.entityName, keys: snapshot.keys)
    }
    return property
  }

  /// The key's property, or an error naming the key and what was meant.
  @inline(__always)
  private func property(_ key: Key) throws(ObjectGraphError) -> PropertyValue { try property(key, at: locate(key)) }

  /// The key's attribute value at `location`, not nil.
  @inline(__always)
  private func value<T>(
    _ key: Key, at location: RecordDecoder.Location, as type: T.Type
  ) throws(ObjectGraphError) -> FilterValue {
    switch try property(key, at: location) {
    case .attribute(.null): throw nilError(key, T.self)
    case .attribute(let value): return value
    case .relationship(let targets): throw relationshipMismatch(key, targets, T.self)
    }
  }

  /// The key's attribute value, not nil.
  @inline(__always)
  private func value<T>(_ key: Key, as type: T.Type) throws(ObjectGraphError) -> FilterValue {
    try value(key, at: locate(key), as: T.self)
  }

  @inline(never)
  private func nilError<T>(_ key: Key, _ type: T.Type) -> ObjectGraphError {
    RecordDecoder.error(place(key), "nil cannot be read as \(T.self); declare it \(T.self)?")
  }

  @inline(never)
  private func failure(_ key: Key, _ mismatch: RecordValue.Mismatch) -> ObjectGraphError {
    RecordDecoder.error(place(key), mismatch.reason)
  }

  @inline(never)
  private func relationshipMismatch<T>(_ key: Key, _ targets: RelationshipTargets, _ type: T.Type) -> ObjectGraphError {
    switch targets {
    case .toOne: RecordDecoder.error(place(key), "a to-one relationship is read as ObjectID?, not \(T.self)")
    case .toMany:
      RecordDecoder.error(place(key), "a to-many relationship is read as [ObjectID] or Set<ObjectID>, not \(T.self)")
    }
  }

  func decodeNil(forKey key: Key) throws -> Bool {
    switch try property(key) {
    case .attribute(let value): value == .null
    case .relationship(.toOne(let id)): id == nil
    case .relationship(.toMany): false
    }
  }

  // Each read first matches the stored value's payload where it lies (no
  // copy of the value); anything else takes the general path at the same
  // place, which converts what can be and says what is wrong otherwise.

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
    let location = locate(key)
    if case .attribute(let slot)? = location.slot, case .bool(let flag) = location.snapshot.pointee.values[slot] {
      return flag
    }
    let stored = try value(key, at: location, as: Bool.self)
    do { return try RecordValue.bool(from: stored) } catch { throw failure(key, error) }
  }

  func decode(_ type: String.Type, forKey key: Key) throws -> String {
    let location = locate(key)
    if case .attribute(let slot)? = location.slot, case .string(let text) = location.snapshot.pointee.values[slot] {
      return text
    }
    let stored = try value(key, at: location, as: String.self)
    do { return try RecordValue.string(from: stored) } catch { throw failure(key, error) }
  }

  func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
    let location = locate(key)
    if case .attribute(let slot)? = location.slot, case .double(let number) = location.snapshot.pointee.values[slot] {
      return number
    }
    let stored = try value(key, at: location, as: Double.self)
    do { return try RecordValue.double(from: stored, as: Double.self) } catch { throw failure(key, error) }
  }

  func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
    let stored = try value(key, as: Float.self)
    do { return try RecordValue.float(from: stored) } catch { throw failure(key, error) }
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

  @inline(__always)
  private func integer<T: FixedWidthInteger>(_ key: Key) throws(ObjectGraphError) -> T {
    let location = locate(key)
    if case .attribute(let slot)? = location.slot, case .int(let number) = location.snapshot.pointee.values[slot],
      let fitted = T(exactly: number)
    {
      return fitted
    }
    let stored = try value(key, at: location, as: T.self)
    do { return try RecordValue.integer(T.self, from: stored) } catch { throw failure(key, error) }
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    // A Foundation value is an attribute: read it as the primitive types
    // are read, without handling the property as a whole; dates and UUIDs,
    // the common ones, straight from the stored value's payload.
    if RecordValue.isFoundationType(T.self) {
      let location = locate(key)
      if T.self == Date.self, case .attribute(let slot)? = location.slot,
        case .date(let seconds) = location.snapshot.pointee.values[slot]
      {
        return unsafeBitCast(Date(timeIntervalSinceReferenceDate: seconds), to: T.self)
      }
      if T.self == UUID.self, case .attribute(let slot)? = location.slot,
        case .uuid(let bits) = location.snapshot.pointee.values[slot]
      {
        return unsafeBitCast(UUID(bits: bits), to: T.self)
      }
      let stored = try value(key, at: location, as: T.self)
      do { return try RecordValue.foundationValue(T.self, from: stored) } catch { throw failure(key, error) }
    }
    return try decode(T.self, from: try property(key), key)
  }

  /// A value of `T` from the key's property: a relationship's identifiers,
  /// a Foundation value, or what `T` reads from a single value.
  private func decode<T: Decodable>(_ type: T.Type, from property: PropertyValue, _ key: Key) throws -> T {
    let stored: FilterValue
    switch property {
    case .relationship(let targets):
      switch targets {
      case .toOne(let id?) where T.self == ObjectID.self: return unsafeBitCast(id, to: T.self)
      case .toOne(nil) where T.self == ObjectID.self: throw nilError(key, T.self)
      case .toMany where T.self == [ObjectID].self: return unsafeBitCast(targets.objectIDs, to: T.self)
      case .toMany(let ids) where T.self == Set<ObjectID>.self: return unsafeBitCast(ids, to: T.self)
      default: throw relationshipMismatch(key, targets, T.self)
      }
    case .attribute(.null): throw nilError(key, T.self)
    case .attribute(let value): stored = value
    }
    if RecordValue.isFoundationType(T.self) {
      do { return try RecordValue.foundationValue(T.self, from: stored) } catch { throw failure(key, error) }
    }
    do {
      return try T(from: RecordValueDecoder(value: stored, place: place(key)))
    } catch let error as ObjectGraphError {
      throw error
    } catch {
      throw valueFailure(key, T.self, error)
    }
  }

  /// What a value's own `init(from:)` threw (an enum's unknown raw value),
  /// named after the key it read.
  @inline(never)
  private func valueFailure<T>(_ key: Key, _ type: T.Type, _ error: any Error) -> ObjectGraphError {
    let reason =
      switch error {
      case DecodingError.dataCorrupted(let context), DecodingError.typeMismatch(_, let context),
        DecodingError.valueNotFound(_, let context), DecodingError.keyNotFound(_, let context):
        context.debugDescription
      default: "\(error)"
      }
    return RecordDecoder.error(place(key), "\(T.self)'s init(from:) threw: \(reason)")
  }

  // Optionals read their key once: nil for a nil value, an empty to-one
  // relationship, or a key the entity does not have (the protocol's
  // default would look the key up three times).

  /// The key's attribute value for an optional; nil when there is none.
  @inline(__always)
  private func optionalValue<T>(_ key: Key, as type: T.Type) throws(ObjectGraphError) -> FilterValue? {
    switch lookUp(key) {
    case nil, .attribute(.null)?: return nil
    case .attribute(let value)?: return value
    case .relationship(let targets)?: throw relationshipMismatch(key, targets, T.self)
    }
  }

  func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
    guard let stored = try optionalValue(key, as: Bool.self) else { return nil }
    do { return try RecordValue.bool(from: stored) } catch { throw failure(key, error) }
  }

  func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
    guard let stored = try optionalValue(key, as: String.self) else { return nil }
    do { return try RecordValue.string(from: stored) } catch { throw failure(key, error) }
  }

  func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
    guard let stored = try optionalValue(key, as: Double.self) else { return nil }
    do { return try RecordValue.double(from: stored, as: Double.self) } catch { throw failure(key, error) }
  }

  func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
    guard let stored = try optionalValue(key, as: Float.self) else { return nil }
    do { return try RecordValue.float(from: stored) } catch { throw failure(key, error) }
  }

  func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optionalInteger(key) }
  func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optionalInteger(key) }
  func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try optionalInteger(key) }
  func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try optionalInteger(key) }
  func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optionalInteger(key) }
  func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try optionalInteger(key) }
  func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try optionalInteger(key) }
  func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try optionalInteger(key) }
  func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try optionalInteger(key) }
  func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try optionalInteger(key) }

  @inline(__always)
  private func optionalInteger<T: FixedWidthInteger>(_ key: Key) throws(ObjectGraphError) -> T? {
    guard let stored = try optionalValue(key, as: T.self) else { return nil }
    do { return try RecordValue.integer(T.self, from: stored) } catch { throw failure(key, error) }
  }

  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    switch lookUp(key) {
    case nil, .attribute(.null)?, .relationship(.toOne(nil))?: return nil
    case let property?: return try decode(T.self, from: property, key)
    }
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    throw RecordDecoder.error(place(key), "an attribute holds one value, not a nested record")
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    throw RecordDecoder.error(place(key), "an attribute holds one value, not an array")
  }

  func superDecoder() throws -> any Decoder { decoder.takeUnretainedValue() }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    throw RecordDecoder.error(place(key), "an attribute holds one value, not a nested record")
  }
}
