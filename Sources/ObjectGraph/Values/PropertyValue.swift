public import PredicateDSL

/// The value of one key of an object: an attribute's value or a
/// relationship's destinations.
public enum PropertyValue: Hashable, Sendable, Codable, CustomStringConvertible {
  /// An attribute's value.
  case attribute(FilterValue)
  /// A relationship's destinations.
  case relationship(RelationshipTargets)

  /// The attribute's value in predicate syntax, or the destinations as
  /// identifiers: `31`, `"Ann"`, `#4`, `[#4, #7]`, `nil`.
  public var description: String {
    switch self {
    case .attribute(let value): value.description
    case .relationship(.toOne(let id)): id.map(\.description) ?? "nil"
    case .relationship(.toMany(let ids)): "[" + ids.sorted().map(\.description).joined(separator: ", ") + "]"
    }
  }
}
