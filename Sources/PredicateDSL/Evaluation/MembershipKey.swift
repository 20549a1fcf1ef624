/// A value as a hash key with the meaning of ``FilterValue/predicateEqual(_:_:)``:
/// equal numbers are equal keys whatever their type, strings compare by code
/// units (Swift's `String` equality would join canonical equivalents).
package enum MembershipKey: Hashable, Sendable {
  // Not `indirect`: the recursive cases hold arrays, sets and dictionaries,
  // which are references already, so a scalar key never allocates.
  case null
  case int(Int64)
  case double(Double)
  case string(LiteralString)
  case date(Double)
  case uuid(UInt128)
  case data([UInt8])
  case array([MembershipKey])
  case set(Set<MembershipKey>)
  case record([String: MembershipKey])

  package init(_ value: FilterValue) {
    switch value {
    case .null: self = .null
    case .bool(let bool): self = .int(bool ? 1 : 0)
    case .int(let int): self = .int(int)
    case .double(let double):
      if let int = Int64(exactly: double) { self = .int(int) } else { self = .double(double) }
    case .string(let string): self = .string(LiteralString(string))
    case .date(let seconds): self = .date(seconds)
    case .uuid(let uuid): self = .uuid(uuid)
    case .data(let bytes): self = .data(bytes)
    case .array(let array): self = .array(array.map(MembershipKey.init))
    case .set(let set): self = .set(Set(set.map(MembershipKey.init)))
    case .record(let record): self = .record(record.mapValues(MembershipKey.init))
    }
  }
}
