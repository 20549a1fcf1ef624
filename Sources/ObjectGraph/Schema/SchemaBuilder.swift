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
