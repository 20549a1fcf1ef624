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
