public import PredicateDSL

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
