import PredicateDSL

/// Reads a record from a snapshot: a `Decoder` whose keyed container is the
/// snapshot's keys, with no round trip through JSON.
///
/// `Decodable`'s protocol lets a type ask for any container; a record asks
/// for a keyed one, and a value inside it (a `RawRepresentable` enum, a
/// wrapper) for a single value, which ``RecordValueDecoder`` gives.
struct RecordDecoder: Decoder {
  let snapshot: ObjectSnapshot
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(RecordKeyedDecodingContainer<Key>(snapshot: snapshot))
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
