import PredicateDSL

/// An entity of an ``ObjectSchema``: a named kind of object with attributes,
/// relationships and, optionally, a parent entity whose properties it
/// inherits.
///
/// An object of a sub-entity is also an object of its parent: a fetch of
/// `Person` returns `Employee` objects too, as Core Data's sub-entities do.
///
/// ```swift
/// let person = EntityDescription(
///   "Person",
///   attributes: [
///     .init("name", .string),
///     .init("age", .integer, isOptional: true, defaultValue: 0),
///   ],
///   relationships: [
///     .toOne("employer", destination: "Company", inverse: "employees")
///   ])
/// let employee = EntityDescription(
///   "Employee", parent: "Person", attributes: [.init("salary", .double, isOptional: true)])
/// ```
public struct EntityDescription: Hashable, Sendable {
  /// The entity's name, as predicates and fetches name it: `"Person"`.
  public var name: String
  /// The name of the parent entity, or nil for a root entity.
  public var parent: String?
  /// The attributes this entity declares (inherited ones are not repeated).
  public var attributes: [AttributeDescription]
  /// The relationships this entity declares (inherited ones are not repeated).
  public var relationships: [RelationshipDescription]
  /// Keys whose changes watchers ignore for every watch on this entity (an
  /// update that changes only these keys does not count, unless a watch's
  /// predicate reads them). Sub-entities inherit them.
  public var ignoredKeys: Set<String>

  /// Creates an entity description.
  public init(
    _ name: String, parent: String? = nil, attributes: [AttributeDescription] = [],
    relationships: [RelationshipDescription] = [], ignoredKeys: Set<String> = []
  ) {
    self.name = name
    self.parent = parent
    self.attributes = attributes
    self.relationships = relationships
    self.ignoredKeys = ignoredKeys
  }
}
