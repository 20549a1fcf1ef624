public import ObjectGraph
import PredicateDSL

/// The tables a ``PostgresReplica`` replicates and how their rows become
/// objects of an ``ObjectSchema``: one ``TableMapping`` per entity.
///
/// Creating a mapping checks it against the schema; ``problems(in:)``
/// checks it against a database's catalog, and a replica refuses to start
/// while any problem remains, naming every one.
///
/// ```swift
/// let mapping = try ReplicaMapping(
///   schema: schema, tables: [TableMapping(entity: "Person", table: "people")])
/// ```
public struct ReplicaMapping: Sendable {
  /// The schema of the replica's context.
  public let schema: ObjectSchema
  /// Every mapped entity's table mapping, in schema order.
  public let tables: [TableMapping]
  let resolved: [ResolvedTable]

  /// Maps every entity of `schema`, taking each entity's mapping from
  /// `tables` when it has one and the defaults otherwise.
  ///
  /// - Parameters:
  ///   - schema: The replica's schema.
  ///   - tables: Mappings that differ from the defaults.
  ///   - entities: The entities to replicate; every entity when nil.
  /// - Throws: ``PostgresReplicaError/Code/mappingMismatch`` naming every
  ///   mapping that names an unknown entity, attribute or relationship, a
  ///   to-one relationship without a column on either side, or a mapped
  ///   relationship whose destination is not mapped.
  public init(schema: ObjectSchema, tables: [TableMapping] = [], entities: [String]? = nil) throws(PostgresReplicaError)
  {
    var problems: [String] = []
    let names = entities ?? schema.entities.map(\.name)
    var byEntity: [String: TableMapping] = [:]
    for table in tables {
      if schema.entity(named: table.entity) == nil {
        problems.append("mapping of unknown entity '\(table.entity)'")
      } else if byEntity.updateValue(table, forKey: table.entity) != nil {
        problems.append("entity '\(table.entity)' is mapped twice")
      }
    }
    for name in names where schema.entity(named: name) == nil {
      problems.append("unknown entity '\(name)'")
    }
    let mapped = names.filter { schema.entity(named: $0) != nil }
    let mappings = mapped.map { byEntity[$0] ?? TableMapping(entity: $0) }
    var resolved: [ResolvedTable] = []
    for mapping in mappings {
      resolved.append(Self.resolve(mapping, schema: schema, mapped: Set(mapped), problems: &problems))
    }
    for table in tables where !mapped.contains(table.entity) && schema.entity(named: table.entity) != nil {
      problems.append("entity '\(table.entity)' has a mapping but is not among the replicated entities")
    }
    for table in resolved {
      let (_, relationships) = Self.properties(of: table.entity, in: schema)
      for relationship in relationships where !relationship.isToMany && mapped.contains(relationship.destination) {
        guard !table.foreignKeys.contains(where: { $0.relationship == relationship.name }) else { continue }
        let inverse = resolved.first { $0.entity == relationship.destination }?.foreignKeys.contains {
          $0.relationship == relationship.inverse
        }
        if inverse != true {
          problems.append(
            "\(table.entity).\(relationship.name): to-one with a to-one inverse, and neither side names its"
              + " column in foreignKeys")
        }
      }
    }
    var seenTables: [String: String] = [:]
    for table in resolved {
      if let other = seenTables.updateValue(table.entity, forKey: table.qualifiedName) {
        problems.append("entities '\(other)' and '\(table.entity)' both map to table \(table.qualifiedName)")
      }
    }
    guard problems.isEmpty else {
      throw PostgresReplicaError(.mappingMismatch, problems.joined(separator: "; "))
    }
    self.schema = schema
    self.tables = mappings
    self.resolved = resolved
  }

  /// The attributes and relationships of an entity, its ancestors' first.
  static func properties(
    of entity: String, in schema: ObjectSchema
  ) -> (
    [AttributeDescription], [RelationshipDescription]
  ) {
    guard let description = schema.entity(named: entity) else { return ([], []) }
    var (attributes, relationships) = description.parent.map { properties(of: $0, in: schema) } ?? ([], [])
    attributes += description.attributes
    relationships += description.relationships
    return (attributes, relationships)
  }

  private static func resolve(
    _ mapping: TableMapping, schema: ObjectSchema, mapped: Set<String>, problems: inout [String]
  ) -> ResolvedTable {
    let entity = mapping.entity
    let (attributes, relationships) = properties(of: entity, in: schema)
    for key in mapping.columns.keys.sorted() where !attributes.contains(where: { $0.name == key }) {
      problems.append("\(entity): '\(key)' in columns is not an attribute")
    }
    for key in mapping.foreignKeys.keys.sorted() {
      if let relationship = relationships.first(where: { $0.name == key }) {
        if relationship.isToMany {
          problems.append("\(entity): '\(key)' in foreignKeys is a to-many relationship; map its inverse")
        }
      } else {
        problems.append("\(entity): '\(key)' in foreignKeys is not a relationship")
      }
    }
    let columns = attributes.map { attribute in
      ResolvedTable.Attribute(
        name: attribute.name, column: mapping.columns[attribute.name] ?? attribute.name, type: attribute.type,
        isOptional: attribute.isOptional)
    }
    var foreignKeys: [ResolvedTable.ForeignKey] = []
    for relationship in relationships where !relationship.isToMany {
      let inverseIsToMany =
        properties(of: relationship.destination, in: schema).1.first { $0.name == relationship.inverse }?.isToMany
        ?? false
      let column = mapping.foreignKeys[relationship.name] ?? (inverseIsToMany ? "\(relationship.name)_id" : nil)
      if !mapped.contains(relationship.destination) {
        problems.append(
          "\(entity).\(relationship.name): its destination '\(relationship.destination)' is not replicated")
        continue
      }
      guard let column else { continue }
      foreignKeys.append(
        ResolvedTable.ForeignKey(
          relationship: relationship.name, column: column, destination: relationship.destination,
          isOptional: relationship.isOptional))
    }
    return ResolvedTable(
      entity: entity, schema: mapping.schema, table: mapping.tableName, primaryKey: mapping.primaryKey,
      primaryKeyAttribute: columns.first { $0.column == mapping.primaryKey }?.name, attributes: columns,
      foreignKeys: foreignKeys)
  }
}
