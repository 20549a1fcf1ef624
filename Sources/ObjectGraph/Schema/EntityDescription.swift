public import PredicateDSL

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

/// An attribute of an entity: a named, typed value.
///
/// ```swift
/// AttributeDescription("age", .integer, isOptional: true, defaultValue: 0)
/// ```
public struct AttributeDescription: Hashable, Sendable {
  /// The attribute's key.
  public var name: String
  /// The type of its values.
  public var type: AttributeType
  /// Whether the value may be nil when the object is saved.
  public var isOptional: Bool
  /// The value a new object starts with; nil means no value.
  public var defaultValue: FilterValue?
  /// Whether the context keeps a table from value to objects, so that a
  /// fetch (and a list monitor's first fetch) whose predicate begins with
  /// an equality or `IN` on the attribute reads only the matching objects.
  /// It costs, per change of the value, a hash lookup and an update of the
  /// value's list of objects (linear in that list's length).
  public var isIndexed: Bool

  /// Creates an attribute description. Attributes are required unless
  /// `isOptional` is true.
  public init(
    _ name: String, _ type: AttributeType, isOptional: Bool = false, defaultValue: FilterValue? = nil,
    isIndexed: Bool = false
  ) {
    self.name = name
    self.type = type
    self.isOptional = isOptional
    self.defaultValue = defaultValue
    self.isIndexed = isIndexed
  }
}

/// What deleting an object does to the objects its relationship points to.
public enum DeleteRule: String, Hashable, Sendable, CaseIterable, Codable {
  /// The destinations stay; their inverse relationship forgets the deleted
  /// object.
  case nullify
  /// The destinations are deleted too, applying their own rules.
  case cascade
  /// The save fails while the relationship still holds an object that is
  /// not deleted in the same save.
  case deny
}

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
