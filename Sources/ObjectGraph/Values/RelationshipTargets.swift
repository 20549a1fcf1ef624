/// The objects a relationship points to.
public enum RelationshipTargets: Hashable, Sendable, Codable {
  /// A to-one relationship's destination, or nil.
  case toOne(ObjectID?)
  /// A to-many relationship's destinations.
  case toMany(Set<ObjectID>)

  /// The destinations in ascending ``ObjectID`` order.
  public var objectIDs: [ObjectID] {
    switch self {
    case .toOne(let id): id.map { [$0] } ?? []
    case .toMany(let ids): ids.sorted()
    }
  }

  /// Whether the relationship points to no object.
  public var isEmpty: Bool {
    switch self {
    case .toOne(let id): id == nil
    case .toMany(let ids): ids.isEmpty
    }
  }

  /// Whether `id` is one of the destinations.
  public func contains(_ id: ObjectID) -> Bool {
    switch self {
    case .toOne(let target): target == id
    case .toMany(let ids): ids.contains(id)
    }
  }
}
