public import PredicateDSL

extension ManagedObject: GraphObject {
  package func attribute(_ slot: Int) -> FilterValue { values[slot] }
  package func targets(_ slot: Int) -> RelationshipTargets { relationships[slot] }
  package func related(_ id: ObjectID) -> ManagedObject? {
    guard let object = context?.allObjects[id], !object.isDeleted else { return nil }
    return object
  }
  package static var followsRelationships: Bool { true }
}

extension ObjectSnapshot: GraphObject {
  package func attribute(_ slot: Int) -> FilterValue { values[slot] }
  package func targets(_ slot: Int) -> RelationshipTargets { relationships[slot] }
  package func related(_ id: ObjectID) -> ObjectSnapshot? { nil }
  package static var followsRelationships: Bool { false }
}

/// Resolves key paths against an entity of a schema: attributes become slot
/// reads, relationships are followed to their destinations (to-one) or
/// mapped over them (to-many), and unknown keys are compile errors naming
/// the entity.
package struct ObjectKeyResolver<Object: GraphObject>: KeyResolver {
  package let schema: ObjectSchema
  package let layout: EntityLayout

  package init(schema: ObjectSchema, layout: EntityLayout) {
    self.schema = schema
    self.layout = layout
  }

  package func resolve(_ path: KeyPathReference) throws(PredicateCompileError) -> ResolvedKey<Object> {
    try resolve(path, from: 0, in: layout)
  }

  /// `SELF` reads the object's attributes as a record.
  package func resolveSelf(at range: SyntaxRange) throws(PredicateCompileError) -> ResolvedKey<Object> {
    ResolvedKey(consuming: 1, type: .unknown, entity: layout.name) { Self.record(of: $0) }
  }

  private func resolve(
    _ path: KeyPathReference, from start: Int, in layout: EntityLayout
  )
    throws(PredicateCompileError) -> ResolvedKey<Object>
  {
    let key = path.components[start]
    switch layout.slot(key) {
    case .attribute(let slot):
      return ResolvedKey(
        consuming: start + 1, type: .attribute(layout.attributes[slot].type), entity: layout.name
      ) { $0.attribute(slot) }
    case .relationship(let slot):
      return try resolveRelationship(path, from: start, slot: slot, in: layout)
    case nil:
      throw PredicateCompileError.unknownKey(
        path, component: start, entity: layout.name, candidates: layout.keys)
    }
  }

  private func resolveRelationship(
    _ path: KeyPathReference, from start: Int, slot: Int, in layout: EntityLayout
  ) throws(PredicateCompileError) -> ResolvedKey<Object> {
    let relationship = layout.relationships[slot]
    let destination = schema.layouts[relationship.destinationIndex]
    let next = start + 1 < path.components.count ? path.components[start + 1] : nil

    if relationship.isToMany && next == "@count" {
      return ResolvedKey(consuming: start + 2, type: .attribute(.integer), entity: layout.name) { object in
        guard case .toMany(let ids) = object.targets(slot) else { return .int(0) }
        return .int(Int64(ids.count))
      }
    }
    guard Object.followsRelationships else {
      throw PredicateCompileError(
        .unsupported,
        "'\(path)' follows the relationship '\(relationship.name)' of \(layout.name), which a "
          + "snapshot cannot do; evaluate on live objects (fetch), or read only attributes and '@count'",
        at: path.range, key: path.description, entity: layout.name)
    }

    // Follow into the destination when the next component is one of its
    // keys; otherwise read the destinations as records and leave the rest
    // (collection operators, record keys) to the compiler.
    if let next, !next.hasPrefix("@") {
      let inner = try resolve(path, from: start + 1, in: destination)
      let read = inner.read
      if relationship.isToMany {
        return ResolvedKey(
          consuming: inner.componentCount, type: .collection(of: inner.type), entity: inner.entity
        ) { object in
          guard case .toMany(let ids) = object.targets(slot) else { return .array([]) }
          var values: [FilterValue] = []
          values.reserveCapacity(ids.count)
          for id in ids.sorted() {
            if let target = object.related(id) { values.append(read(target)) }
          }
          return .array(values)
        }
      }
      return ResolvedKey(consuming: inner.componentCount, type: inner.type, entity: inner.entity) { object in
        guard case .toOne(let id?) = object.targets(slot), let target = object.related(id) else {
          return .null
        }
        return read(target)
      }
    }
    if relationship.isToMany {
      return ResolvedKey(
        consuming: start + 1, type: .collection(of: .object(entity: destination.name)), entity: layout.name
      ) { object in
        guard case .toMany(let ids) = object.targets(slot) else { return .array([]) }
        return .array(ids.sorted().compactMap { object.related($0).map(Self.record(of:)) })
      }
    }
    return ResolvedKey(consuming: start + 1, type: .object(entity: destination.name), entity: layout.name) {
      object in
      guard case .toOne(let id?) = object.targets(slot), let target = object.related(id) else { return .null }
      return Self.record(of: target)
    }
  }

  /// An object's attributes as a key-value record, the form `SELF`, whole
  /// related objects and `SUBQUERY` elements take.
  static func record(of object: Object) -> FilterValue {
    var record: [String: FilterValue] = [:]
    for (slot, attribute) in object.layout.attributes.enumerated() {
      record[attribute.name] = object.attribute(slot)
    }
    return .record(record)
  }
}

extension ObjectSchema {
  /// Compiles a predicate for objects of `entity`, to evaluate on live
  /// objects: key paths may follow relationships (`employer.name`,
  /// `ANY employees.age > 30`, `employees.@count`).
  ///
  /// ```swift
  /// let seniors = try schema.filter("age > %d", arguments: [60], for: "Person")
  /// let matches = try seniors.filter(context.objects(of: "Person"))
  /// ```
  ///
  /// - Throws: ``ObjectGraphError`` for an unknown entity,
  ///   `PredicateParseError` for text that is not a predicate,
  ///   `PredicateCompileError` for an unknown key or a type error, naming
  ///   the key, the entity and the position.
  public func filter(
    _ format: String, arguments: [FilterValue] = [], for entity: String
  ) throws
    -> CompiledFilter<ManagedObject>
  {
    try CompiledFilter(
      format, arguments: arguments, resolver: resolver(for: entity) as ObjectKeyResolver<ManagedObject>)
  }

  /// Compiles a parsed predicate for live objects of `entity`.
  ///
  /// - Throws: ``ObjectGraphError`` for an unknown entity,
  ///   `PredicateCompileError` for an unknown key or a type error.
  public func filter(
    _ predicate: PredicateSyntax, source: String? = nil, for entity: String
  ) throws
    -> CompiledFilter<ManagedObject>
  {
    try CompiledFilter(predicate, source: source, resolver: resolver(for: entity) as ObjectKeyResolver<ManagedObject>)
  }

  /// Compiles a predicate for snapshots of `entity`. Snapshots carry no
  /// graph, so key paths read attributes and `@count` of to-many
  /// relationships; following a relationship is a compile error.
  ///
  /// - Throws: As ``filter(_:arguments:for:)``.
  public func snapshotFilter(
    _ format: String, arguments: [FilterValue] = [], for entity: String
  ) throws
    -> CompiledFilter<ObjectSnapshot>
  {
    try CompiledFilter(
      format, arguments: arguments, resolver: resolver(for: entity) as ObjectKeyResolver<ObjectSnapshot>)
  }

  package func resolver<Object: GraphObject>(for entity: String) throws(ObjectGraphError) -> ObjectKeyResolver<Object> {
    guard let layout = layout(named: entity) else {
      throw ObjectGraphError(
        .unknownEntity, "unknown entity '\(entity)' (entities: \(entityNames().joined(separator: ", ")))")
    }
    return ObjectKeyResolver(schema: self, layout: layout)
  }
}
