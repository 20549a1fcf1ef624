/// What a database's catalog says of the tables a mapping names: columns and
/// their types, primary keys, foreign keys and replica identity.
///
/// A ``PostgresReplica`` reads it from `pg_catalog` when it starts;
/// ``ReplicaMapping/problems(in:)`` checks a mapping against it.
public struct DatabaseCatalog: Hashable, Sendable {
  /// One table as the catalog describes it.
  public struct Table: Hashable, Sendable {
    /// One column.
    public struct Column: Hashable, Sendable {
      /// The object identifier of the column's type (`20` for `bigint`).
      public var typeOID: UInt32
      /// Whether the column is `NOT NULL`.
      public var isNotNull: Bool

      /// Creates a column.
      public init(typeOID: UInt32, isNotNull: Bool) {
        self.typeOID = typeOID
        self.isNotNull = isNotNull
      }
    }

    /// The columns, by name.
    public var columns: [String: Column]
    /// The primary key's columns, in key order; empty without one.
    public var primaryKey: [String]
    /// Single-column foreign keys: the referenced table (`public.company`),
    /// by referencing column.
    public var foreignKeys: [String: String]
    /// Whether the table is under `REPLICA IDENTITY FULL`, so that updates
    /// and deletes carry the whole old row.
    public var hasFullReplicaIdentity: Bool

    /// Creates a table.
    public init(
      columns: [String: Column], primaryKey: [String], foreignKeys: [String: String], hasFullReplicaIdentity: Bool
    ) {
      self.columns = columns
      self.primaryKey = primaryKey
      self.foreignKeys = foreignKeys
      self.hasFullReplicaIdentity = hasFullReplicaIdentity
    }
  }

  /// The tables, by qualified name (`public.person`).
  public var tables: [String: Table]

  /// Creates a catalog.
  public init(tables: [String: Table]) { self.tables = tables }
}

extension ReplicaMapping {
  /// Every way the mapping does not match `catalog`, one sentence each, in
  /// schema order; empty when it matches.
  ///
  /// A problem is a missing table, a table without `REPLICA IDENTITY FULL`,
  /// a primary key that is not the mapped column alone, a missing column, a
  /// column whose type the attribute does not admit, a nullable column
  /// mapped to a required attribute, or a foreign-key column that does not
  /// reference the destination's table.
  ///
  /// - Complexity: O(*n*) in the number of mapped columns.
  public func problems(in catalog: DatabaseCatalog) -> [String] {
    var problems: [String] = []
    for table in resolved {
      let name = table.qualifiedName
      guard let found = catalog.tables[name] else {
        problems.append("\(table.entity): table \(name) does not exist")
        continue
      }
      if !found.hasFullReplicaIdentity {
        problems.append("\(name) is not under REPLICA IDENTITY FULL (ALTER TABLE \(name) REPLICA IDENTITY FULL)")
      }
      if found.primaryKey != [table.primaryKey] {
        let actual = found.primaryKey.isEmpty ? "none" : "(" + found.primaryKey.joined(separator: ", ") + ")"
        problems.append("\(name): the primary key is \(actual), the mapping says (\(table.primaryKey))")
      }
      if found.columns[table.primaryKey] == nil {
        problems.append("\(name): the primary-key column \(table.primaryKey) does not exist")
      }
      for attribute in table.attributes {
        guard let column = found.columns[attribute.column] else {
          problems.append("\(table.entity).\(attribute.name): column \(name).\(attribute.column) does not exist")
          continue
        }
        if !ColumnConversion.admitted(by: attribute.type).contains(column.typeOID) {
          problems.append(
            "\(table.entity).\(attribute.name): column \(name).\(attribute.column) is"
              + " \(ColumnConversion.typeName(column.typeOID)); \(ColumnConversion.withArticle("\(attribute.type)")) attribute admits"
              + " \(ColumnConversion.admittedNames(attribute.type))")
        }
        if !attribute.isOptional && !column.isNotNull {
          problems.append(
            "\(table.entity).\(attribute.name): column \(name).\(attribute.column) is nullable;"
              + " the attribute is required")
        }
      }
      for key in table.foreignKeys {
        guard found.columns[key.column] != nil else {
          problems.append("\(table.entity).\(key.relationship): column \(name).\(key.column) does not exist")
          continue
        }
        let destination = resolved.first { $0.entity == key.destination }?.qualifiedName ?? key.destination
        if found.foreignKeys[key.column] != destination {
          let actual = found.foreignKeys[key.column].map { "references \($0)" } ?? "is no foreign key"
          problems.append(
            "\(table.entity).\(key.relationship): column \(name).\(key.column) \(actual);"
              + " the mapping needs a foreign key to \(destination)")
        }
        if !key.isOptional && found.columns[key.column]?.isNotNull == false {
          problems.append(
            "\(table.entity).\(key.relationship): column \(name).\(key.column) is nullable;"
              + " the relationship is required")
        }
      }
    }
    return problems
  }
}
