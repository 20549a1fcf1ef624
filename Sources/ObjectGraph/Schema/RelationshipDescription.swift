/// A relationship of an entity: a reference to one object (to-one) or to a
/// set of objects (to-many) of a destination entity, kept consistent with its
/// inverse on the destination.
///
/// ```swift
/// RelationshipDescription.toOne("employer", destination: "Company", inverse: "employees")
/// RelationshipDescription.toMany(
///   "employees", destination: "Person", inverse: "employer", deleteRule: .deny)
/// ```
public struct RelationshipDescription: Hashable, Sendable {
  /// The relationship's key.
  public var name: String
  /// The entity of the objects it points to.
  public var destination: String
  /// Whether it holds a set of objects rather than at most one.
  public var isToMany: Bool
  /// The name of the relationship on the destination that points back.
  public var inverse: String
  /// What deleting the source object does to the destinations.
  public var deleteRule: DeleteRule
  /// Whether the relationship may be empty (nil, or no objects) when the
  /// object is saved.
  public var isOptional: Bool

  /// Creates a relationship description.
  public init(
    _ name: String, destination: String, isToMany: Bool, inverse: String,
    deleteRule: DeleteRule = .nullify, isOptional: Bool = true
  ) {
    self.name = name
    self.destination = destination
    self.isToMany = isToMany
    self.inverse = inverse
    self.deleteRule = deleteRule
    self.isOptional = isOptional
  }

  /// A relationship to at most one object.
  public static func toOne(
    _ name: String, destination: String, inverse: String, deleteRule: DeleteRule = .nullify,
    isOptional: Bool = true
  ) -> RelationshipDescription {
    RelationshipDescription(
      name, destination: destination, isToMany: false, inverse: inverse, deleteRule: deleteRule,
      isOptional: isOptional)
  }

  /// A relationship to a set of objects.
  public static func toMany(
    _ name: String, destination: String, inverse: String, deleteRule: DeleteRule = .nullify,
    isOptional: Bool = true
  ) -> RelationshipDescription {
    RelationshipDescription(
      name, destination: destination, isToMany: true, inverse: inverse, deleteRule: deleteRule,
      isOptional: isOptional)
  }
}
