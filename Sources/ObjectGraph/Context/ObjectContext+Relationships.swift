extension ObjectContext {
  /// Points a to-one relationship of `object` at `destination`, or clears
  /// it, keeping the inverse consistent: the destination's inverse gains
  /// `object`, the previous destination's loses it, and when the inverse is
  /// to-one too, whatever the destination pointed to before lets go.
  ///
  /// - Throws: ``ObjectGraphError`` for an unknown key, a to-many key, a
  ///   destination of the wrong entity, or a deleted object.
  /// - Important: Confined to ``queue``.
  public func setRelationship(
    _ key: String, of object: ManagedObject, to destination: ManagedObject?
  )
    throws(ObjectGraphError)
  {
    checkQueue()
    try checkLive(object)
    let slot = try relationshipSlot(key, in: object.layout)
    let relationship = object.layout.relationships[slot]
    guard !relationship.isToMany else {
      throw ObjectGraphError(
        .typeMismatch, "\(object.layout.name).\(key) is to-many; use add, remove or setTargets")
    }
    if let destination { try checkDestination(destination, of: relationship, from: object) }
    guard case .toOne(let current) = object.relationships[slot], current != destination?.objectID else {
      return
    }
    if let current, let previous = allObjects[current] {
      detach(id: object.objectID, from: previous, slot: relationship.inverseSlot)
    }
    if let destination {
      link(object, slot: slot, to: destination)
    } else {
      willChange(object)
      object.relationships[slot] = .toOne(nil)
    }
  }

  /// Adds `destination` to a to-many relationship of `object`, keeping the
  /// inverse consistent. Adding an object already there changes nothing.
  ///
  /// - Throws: ``ObjectGraphError`` for an unknown key, a to-one key, a
  ///   destination of the wrong entity, or a deleted object.
  /// - Important: Confined to ``queue``.
  public func add(
    _ destination: ManagedObject, to key: String, of object: ManagedObject
  )
    throws(ObjectGraphError)
  {
    let (slot, relationship) = try toManyRelationship(key, of: object)
    try checkDestination(destination, of: relationship, from: object)
    guard !object.relationships[slot].contains(destination.objectID) else { return }
    link(object, slot: slot, to: destination)
  }

  /// Removes `destination` from a to-many relationship of `object`, and
  /// `object` from the inverse. Removing an object not there changes nothing.
  ///
  /// - Throws: ``ObjectGraphError`` for an unknown key, a to-one key, or a
  ///   deleted object.
  /// - Important: Confined to ``queue``.
  public func remove(
    _ destination: ManagedObject, from key: String, of object: ManagedObject
  )
    throws(ObjectGraphError)
  {
    let (slot, relationship) = try toManyRelationship(key, of: object)
    try checkOwned(destination)
    guard object.relationships[slot].contains(destination.objectID) else { return }
    detach(id: destination.objectID, from: object, slot: slot)
    detach(id: object.objectID, from: destination, slot: relationship.inverseSlot)
  }

  /// Makes a relationship of `object` hold exactly `destinations` (at most
  /// one for a to-one relationship), keeping every inverse consistent.
  ///
  /// - Throws: ``ObjectGraphError`` as ``add(_:to:of:)`` and
  ///   ``setRelationship(_:of:to:)`` do; nothing changes then.
  /// - Important: Confined to ``queue``.
  public func setTargets(
    _ destinations: [ManagedObject], forKey key: String, of object: ManagedObject
  )
    throws(ObjectGraphError)
  {
    checkQueue()
    try checkLive(object)
    let slot = try relationshipSlot(key, in: object.layout)
    let relationship = object.layout.relationships[slot]
    for destination in destinations { try checkDestination(destination, of: relationship, from: object) }
    guard relationship.isToMany else {
      guard destinations.count <= 1 else {
        throw ObjectGraphError(
          .typeMismatch, "\(object.layout.name).\(key) is to-one, but \(destinations.count) objects were given")
      }
      return try setRelationship(key, of: object, to: destinations.first)
    }
    let wanted = Set(destinations.map(\.objectID))
    for id in object.relationships[slot].objectIDs where !wanted.contains(id) {
      if let old = allObjects[id] { try remove(old, from: key, of: object) }
    }
    for destination in destinations { try add(destination, to: key, of: object) }
  }

  /// Checks the queue and the object, and finds a to-many relationship.
  private func toManyRelationship(
    _ key: String, of object: ManagedObject, caller: StaticString = #function
  ) throws(ObjectGraphError) -> (slot: Int, relationship: RelationshipLayout) {
    checkQueue(caller)
    try checkLive(object)
    let slot = try relationshipSlot(key, in: object.layout)
    let relationship = object.layout.relationships[slot]
    guard relationship.isToMany else {
      throw ObjectGraphError(.typeMismatch, "\(object.layout.name).\(key) is to-one; use setRelationship")
    }
    return (slot, relationship)
  }

  func checkDestination(
    _ destination: ManagedObject, of relationship: RelationshipLayout, from object: ManagedObject
  ) throws(ObjectGraphError) {
    try checkLive(destination)
    let expected = schema.layouts[relationship.destinationIndex]
    guard destination.layout.isKind(of: expected) else {
      throw ObjectGraphError(
        .typeMismatch,
        "\(object.layout.name).\(relationship.name) takes \(expected.name) objects, not "
          + "\(destination.layout.name) \(destination.objectID)")
    }
  }

  /// Links `object` to `destination` through `slot`, on both sides.
  private func link(_ object: ManagedObject, slot: Int, to destination: ManagedObject) {
    let relationship = object.layout.relationships[slot]
    let inverseSlot = relationship.inverseSlot
    // A to-one inverse holds one object: whatever it held lets go of the
    // destination first.
    if case .toOne(let holder?) = destination.relationships[inverseSlot], holder != object.objectID,
      let previous = allObjects[holder]
    {
      detach(id: destination.objectID, from: previous, slot: slot)
    }
    attach(id: destination.objectID, to: object, slot: slot)
    attach(id: object.objectID, to: destination, slot: inverseSlot)
  }

  private func attach(id: ObjectID, to object: ManagedObject, slot: Int) {
    switch object.relationships[slot] {
    case .toOne(let current):
      guard current != id else { return }
      willChange(object)
      object.relationships[slot] = .toOne(id)
    case .toMany(var ids):
      guard !ids.contains(id) else { return }
      willChange(object)
      object.relationships[slot] = .toMany([])  // keep `ids` uniquely referenced
      ids.insert(id)
      object.relationships[slot] = .toMany(ids)
    }
  }

  /// Removes `id` from a relationship of `object`. Deleted objects keep
  /// their last values, so they are left as they are.
  func detach(id: ObjectID, from object: ManagedObject, slot: Int) {
    guard !object.isDeleted else { return }
    switch object.relationships[slot] {
    case .toOne(let current):
      guard current == id else { return }
      willChange(object)
      object.relationships[slot] = .toOne(nil)
    case .toMany(var ids):
      guard ids.contains(id) else { return }
      willChange(object)
      object.relationships[slot] = .toMany([])
      ids.remove(id)
      object.relationships[slot] = .toMany(ids)
    }
  }
}
