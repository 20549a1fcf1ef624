public import PredicateDSL

extension ObjectContext {
  /// Inserts an object of the record's entity with the record's values and
  /// relationships; see ``insert(_:as:)``.
  ///
  /// ```swift
  /// let ann = try context.insert(Person(name: "Ann", age: 30, employer: acme.objectID))
  /// ```
  ///
  /// - Throws: ``ObjectGraphError`` as ``insert(_:as:)`` does.
  /// - Important: Confined to ``queue``.
  @discardableResult
  public func insert<Record: EntityRecord>(_ record: Record) throws(ObjectGraphError) -> ManagedObject {
    try insert(record, as: Record.entityName)
  }

  /// Inserts an object of `entity` with the values and relationships a
  /// record writes: each coding key a key of the entity, each value as
  /// ``ObjectSnapshot/decode(_:)`` reads it, a relationship as the
  /// identifiers of live objects.
  ///
  /// - Throws: ``ObjectGraphError`` for an unknown entity or key, a value
  ///   the attribute does not take, or a destination that is not a live
  ///   object of the relationship's entity; nothing is inserted then.
  /// - Important: Confined to ``queue``.
  @discardableResult
  public func insert(_ record: some Encodable, as entity: String) throws(ObjectGraphError) -> ManagedObject {
    checkQueue()
    let layout = try recordLayout(entity)
    let (values, targets) = try RecordEncoder.encode(record, layout: layout)
    let destinations = try liveDestinations(targets, in: layout)
    let object = try insert(entity, values: values)
    do {
      for (key, objects) in destinations { try setTargets(objects, forKey: key, of: object) }
    } catch {
      // A new object has no other tie: deleting it leaves the context as
      // it was.
      try? delete(object)
      throw error
    }
    return object
  }

  /// Updates `object` from a record: the values and relationships the
  /// record writes, of which only those that differ count as changed (a
  /// record that changes nothing leaves the object unchanged). An optional
  /// that is nil clears its key.
  ///
  /// ```swift
  /// var person = try ann.decode(Person.self)
  /// person.age = 31
  /// try context.update(ann, from: person)
  /// ```
  ///
  /// - Throws: ``ObjectGraphError`` as ``insert(_:as:)`` does, or for a
  ///   deleted object; nothing changes then.
  /// - Important: Confined to ``queue``.
  public func update(_ object: ManagedObject, from record: some Encodable) throws(ObjectGraphError) {
    checkQueue()
    try checkLive(object)
    let (values, targets) = try RecordEncoder.encode(record, layout: object.layout)
    let destinations = try liveDestinations(targets, in: object.layout)
    try setValues(values, of: object)
    for (key, objects) in destinations { try setTargets(objects, forKey: key, of: object) }
  }

  /// Fetches the objects of the record's entity matching a predicate, as
  /// records.
  ///
  /// ```swift
  /// let adults = try context.fetch(Person.self, where: "age >= %d", 18, sortedBy: [.ascending("name")])
  /// ```
  ///
  /// - Throws: As `fetch(_:where:_:sortedBy:limit:offset:)` with an entity
  ///   name, and
  ///   ``ObjectGraphError`` for an object that does not read as a record.
  /// - Important: Confined to ``queue``.
  public func fetch<Record: EntityRecord>(
    _ type: Record.Type, where format: String? = nil, _ arguments: FilterValue...,
    sortedBy sortKeys: [ObjectFetchRequest.SortKey] = [], limit: Int? = nil, offset: Int = 0
  ) throws -> [Record] {
    let request = try ObjectFetchRequest(
      entity: Record.entityName, format: format, arguments: arguments, sortedBy: sortKeys, limit: limit,
      offset: offset)
    return try fetch(request).map { object throws(ObjectGraphError) in try object.decode(Record.self) }
  }

  private func recordLayout(_ entity: String) throws(ObjectGraphError) -> EntityLayout {
    guard let layout = schema.layout(named: entity) else {
      throw ObjectGraphError(
        .unknownEntity, "unknown entity '\(entity)' (entities: \(schema.entityNames().joined(separator: ", ")))")
    }
    return layout
  }

  /// The live objects a record's relationship targets name, by key in
  /// slot order, each checked against its relationship (a live object of
  /// the destination's entity, at most one for a to-one) before anything
  /// changes: setting the first relationship can take a destination from
  /// its holder, which a later refusal would leave done.
  private func liveDestinations(
    _ targets: [String: [ObjectID]], in layout: EntityLayout
  ) throws(ObjectGraphError) -> [(String, [ManagedObject])] {
    var destinations: [(String, [ManagedObject])] = []
    for relationship in layout.relationships where targets[relationship.name] != nil {
      let expected = schema.layouts[relationship.destinationIndex]
      var objects: [ManagedObject] = []
      for id in targets[relationship.name] ?? [] {
        guard let object = object(with: id) else {
          throw ObjectGraphError(
            .invalidObject, "\(layout.name).\(relationship.name): \(id) is not a live object of this context")
        }
        guard object.layout.isKind(of: expected) else {
          throw ObjectGraphError(
            .typeMismatch,
            "\(layout.name).\(relationship.name) takes \(expected.name) objects, not "
              + "\(object.layout.name) \(object.objectID)")
        }
        objects.append(object)
      }
      if !relationship.isToMany && objects.count > 1 {
        throw ObjectGraphError(
          .typeMismatch, "\(layout.name).\(relationship.name) is to-one, but \(objects.count) objects were given")
      }
      destinations.append((relationship.name, objects))
    }
    return destinations
  }
}
