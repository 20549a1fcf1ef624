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
