/// How one entity maps to one table: the table's name, its primary key, and
/// the columns of attributes and of to-one relationships when they differ
/// from the defaults.
///
/// By default an entity maps to the table of its own name in the `public`
/// schema, an attribute to the column of its name, the primary key is `id`,
/// and a to-one relationship whose inverse is to-many is the foreign-key
/// column `<relationship>_id`. A to-one relationship whose inverse is to-one
/// has a column only on the side that names one in ``foreignKeys``; the
/// other side follows as the inverse. To-many relationships are always
/// inverses of foreign keys.
///
/// ```swift
/// let people = TableMapping(
///   entity: "Person", table: "people", columns: ["name": "full_name"],
///   foreignKeys: ["employer": "company_id"])
/// ```
public struct TableMapping: Hashable, Sendable {
  /// The entity's name in the schema.
  public var entity: String
  /// The table's schema (namespace).
  public var schema: String
  /// The table's name; the entity's name when nil.
  public var table: String?
  /// The primary key's column: one column, whose values identify rows.
  public var primaryKey: String
  /// Column names of attributes whose column is not named as they are,
  /// keyed by attribute.
  public var columns: [String: String]
  /// Foreign-key columns of to-one relationships, keyed by relationship.
  public var foreignKeys: [String: String]

  /// Creates a mapping; every argument but the entity has a default.
  public init(
    entity: String, schema: String = "public", table: String? = nil, primaryKey: String = "id",
    columns: [String: String] = [:], foreignKeys: [String: String] = [:]
  ) {
    self.entity = entity
    self.schema = schema
    self.table = table
    self.primaryKey = primaryKey
    self.columns = columns
    self.foreignKeys = foreignKeys
  }

  /// The table's name: ``table``, or the entity's name.
  public var tableName: String { table ?? entity }
}
