import PredicateDSL

/// Reads a record from a snapshot: a `Decoder` whose keyed container is the
/// snapshot's keys, with no round trip through JSON.
///
/// `Decodable`'s protocol lets a type ask for any container; a record asks
/// for a keyed one, and a value inside it (a `RawRepresentable` enum, a
/// wrapper) for a single value, which ``RecordValueDecoder`` gives.
///
/// A class, so that its keyed container holds one reference where the
/// snapshot would be three, copied at every read through the container's
/// box.
final class RecordDecoder: Decoder {
  let snapshot: ObjectSnapshot

  init(snapshot: ObjectSnapshot) { self.snapshot = snapshot }

  /// The snapshot's value of `key`, read in place: a container reading
  /// through ``snapshot`` would copy it, retaining what it holds.
  @inline(__always)
  func property(_ key: String) -> PropertyValue? { snapshot.property(key) }

  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(RecordKeyedDecodingContainer<Key>(decoder: self))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw RecordDecoder.error(snapshot.entityName, "a record reads an object's keys; it has no unkeyed form")
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    throw RecordDecoder.error(snapshot.entityName, "a record reads an object's keys; it is not a single value")
  }

  /// `Person has no key 'agee' (did you mean 'age'?)`: a record's key that
  /// its entity does not have.
  static func unknownKey(_ key: String, of entity: String, keys: [String]) -> ObjectGraphError {
    let guess = UnknownField.suggestion(for: key, among: keys).map { " (did you mean '\($0)'?)" } ?? ""
    return ObjectGraphError(
      .unknownKey,
      "\(entity) has no key '\(key)'\(guess): name the record's property after a key, or map it with CodingKeys")
  }

  /// An error about a record of `entity`: `Person.age: the integer 300 does
  /// not fit UInt8`.
  static func error(_ place: String, _ reason: String) -> ObjectGraphError {
    ObjectGraphError(.typeMismatch, "\(place): \(reason)")
  }
}
