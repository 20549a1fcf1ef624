import PredicateDSL

/// A table mapping with every default filled in, as the replica applies it.
struct ResolvedTable: Hashable, Sendable {
  struct Attribute: Hashable, Sendable {
    var name: String
    var column: String
    var type: AttributeType
    var isOptional: Bool
  }

  struct ForeignKey: Hashable, Sendable {
    var relationship: String
    var column: String
    var destination: String
    var isOptional: Bool
  }

  var entity: String
  var schema: String
  var table: String
  var primaryKey: String
  /// The attribute stored in the primary-key column, when one is.
  var primaryKeyAttribute: String?
  var attributes: [Attribute]
  var foreignKeys: [ForeignKey]

  /// `public.person`.
  var qualifiedName: String { "\(schema).\(table)" }
}
