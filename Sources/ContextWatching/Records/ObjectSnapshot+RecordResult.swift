public import ObjectGraph

extension ObjectSnapshot {
  /// The snapshot read as a record, or why it cannot be, naming the object:
  /// `object #12: Person.age: nil cannot be read as Int; declare it Int?`.
  /// What the typed monitors hand out, each snapshot decoded once.
  @inlinable
  func record<Record: Decodable>(_ type: Record.Type) -> Result<Record, ObjectGraphError> {
    do {
      return .success(try decode(Record.self))
    } catch {
      return .failure(ObjectGraphError(error.code, "object \(objectID): \(error.message)"))
    }
  }

  /// The snapshot read as a record, for a read that throws.
  func readRecord<Record: Decodable>(_ type: Record.Type) throws(ObjectGraphError) -> Record {
    try record(Record.self).get()
  }
}
