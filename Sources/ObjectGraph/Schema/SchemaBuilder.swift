/// A property of an entity, as the schema builder lists them: an
/// attribute, a relationship, or keys watchers ignore.
public enum EntityProperty: Hashable, Sendable {
  /// An attribute.
  case attribute(AttributeDescription)
  /// A relationship.
  case relationship(RelationshipDescription)
  /// Keys whose changes watchers ignore (see ``EntityDescription/ignoredKeys``).
  case ignoredKeys(Set<String>)

  /// Keys whose changes watchers ignore, for the builder:
  /// `EntityProperty.ignoring("lastSeen")`.
  public static func ignoring(_ keys: String...) -> EntityProperty { .ignoredKeys(Set(keys)) }
}

/// Builds the properties of an ``EntityDescription`` from a list, with `if`,
/// `for` and optional parts.
///
/// ```swift
/// EntityDescription("Person") {
///   AttributeDescription("name", .string)
///   AttributeDescription("age", .integer, isOptional: true, defaultValue: 0)
///   RelationshipDescription.toOne("employer", destination: "Company", inverse: "employees")
///   EntityProperty.ignoring("lastSeen")
/// }
/// ```
@resultBuilder
public enum EntityPropertiesBuilder {
  /// An attribute.
  public static func buildExpression(_ attribute: AttributeDescription) -> [EntityProperty] { [.attribute(attribute)] }
  /// A relationship.
  public static func buildExpression(_ relationship: RelationshipDescription) -> [EntityProperty] {
    [.relationship(relationship)]
  }
  /// Any property.
  public static func buildExpression(_ property: EntityProperty) -> [EntityProperty] { [property] }
  /// A list of properties.
  public static func buildBlock(_ parts: [EntityProperty]...) -> [EntityProperty] { parts.flatMap { $0 } }
  /// An optional part.
  public static func buildOptional(_ part: [EntityProperty]?) -> [EntityProperty] { part ?? [] }
  /// The first branch of an `if`.
  public static func buildEither(first part: [EntityProperty]) -> [EntityProperty] { part }
  /// The second branch of an `if`.
  public static func buildEither(second part: [EntityProperty]) -> [EntityProperty] { part }
  /// A `for` loop.
  public static func buildArray(_ parts: [[EntityProperty]]) -> [EntityProperty] { parts.flatMap { $0 } }
}

/// Builds the entities of an ``ObjectSchema`` from a list.
///
/// ```swift
/// let schema = try ObjectSchema {
///   EntityDescription("Company") {
///     AttributeDescription("name", .string)
///     RelationshipDescription.toMany("employees", destination: "Person", inverse: "employer")
///   }
///   EntityDescription("Person") {
///     AttributeDescription("name", .string)
///     RelationshipDescription.toOne("employer", destination: "Company", inverse: "employees")
///   }
/// }
/// ```
@resultBuilder
public enum SchemaBuilder {
  /// An entity.
  public static func buildExpression(_ entity: EntityDescription) -> [EntityDescription] { [entity] }
  /// A list of entities.
  public static func buildBlock(_ parts: [EntityDescription]...) -> [EntityDescription] { parts.flatMap { $0 } }
  /// An optional part.
  public static func buildOptional(_ part: [EntityDescription]?) -> [EntityDescription] { part ?? [] }
  /// The first branch of an `if`.
  public static func buildEither(first part: [EntityDescription]) -> [EntityDescription] { part }
  /// The second branch of an `if`.
  public static func buildEither(second part: [EntityDescription]) -> [EntityDescription] { part }
  /// A `for` loop.
  public static func buildArray(_ parts: [[EntityDescription]]) -> [EntityDescription] { parts.flatMap { $0 } }
}

extension EntityDescription {
  /// Creates an entity description from a list of properties.
  ///
  /// ```swift
  /// EntityDescription("Employee", parent: "Person") {
  ///   AttributeDescription("salary", .double, isOptional: true)
  /// }
  /// ```
  public init(_ name: String, parent: String? = nil, @EntityPropertiesBuilder properties: () -> [EntityProperty]) {
    self.init(name, parent: parent)
    for property in properties() {
      switch property {
      case .attribute(let attribute): attributes.append(attribute)
      case .relationship(let relationship): relationships.append(relationship)
      case .ignoredKeys(let keys): ignoredKeys.formUnion(keys)
      }
    }
  }
}

extension ObjectSchema {
  /// Validates and lays out a schema built from a list of entities.
  ///
  /// - Throws: ``SchemaError`` listing every problem found.
  public init(@SchemaBuilder entities: () -> [EntityDescription]) throws(SchemaError) {
    try self.init(entities())
  }
}
