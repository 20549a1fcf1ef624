extension ObjectSnapshot {
  /// Reads the snapshot as a record: each of the record's coding keys is a
  /// key of the entity, read straight from the snapshot (no JSON between).
  ///
  /// ```swift
  /// struct Person: Decodable { var name: String; var age: Int? }
  /// let person = try snapshot.decode(Person.self)
  /// ```
  ///
  /// An optional property reads a nil value, or a key the entity does not
  /// have, as nil. Attribute types read as these Swift types: integer as
  /// any fixed-width integer the value fits, and `Decimal`; double as
  /// `Double`, `Float` and `Decimal`; boolean as `Bool`; string as
  /// `String` and `URL`; date as `Date`; uuid as `UUID`; data as `Data`;
  /// and a `RawRepresentable` enum as its raw value. A to-one relationship
  /// reads as `ObjectID?`, a to-many one as `[ObjectID]` (in identifier
  /// order) or `Set<ObjectID>`.
  ///
  /// - Throws: ``ObjectGraphError`` naming the entity, the key, what is
  ///   stored and the Swift type: `Person.age: the integer 300 does not fit
  ///   UInt8`, `Person.name: nil cannot be read as String; declare it
  ///   String?`, `Person has no key 'nmae' (did you mean 'name'?): …`.
  @inlinable
  public func decode<Record: Decodable>(_ type: Record.Type) throws(ObjectGraphError) -> Record {
    // Inlined where the record type is known, so that the record's
    // `init(from:)` is called directly. The snapshot is read in place,
    // where it is, while the record is read.
    do {
      return try withUnsafePointer(to: self) { snapshot in
        let decoder = RecordDecoder.start(reading: snapshot)
        defer { RecordDecoder.finish(decoder) }
        return try Record(from: decoder.takeUnretainedValue())
      }
    } catch {
      throw RecordDecoder.failure(error, reading: Record.self, of: entityName)
    }
  }
}

extension ManagedObject {
  /// Reads the object's current values as a record; see
  /// ``ObjectSnapshot/decode(_:)``.
  ///
  /// - Throws: ``ObjectGraphError`` as ``ObjectSnapshot/decode(_:)`` does.
  /// - Important: Confined to the context's queue.
  public func decode<Record: Decodable>(_ type: Record.Type) throws(ObjectGraphError) -> Record {
    try snapshot().decode(type)
  }
}
