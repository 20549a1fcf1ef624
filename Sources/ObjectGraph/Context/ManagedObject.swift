public import PredicateDSL

/// A live object of an ``ObjectContext``: what `NSManagedObject` is to Core
/// Data.
///
/// A managed object belongs to its context's queue, like the context itself:
/// read and change it only there. To hand an object to another queue, take a
/// ``snapshot()``, an immutable `Sendable` value.
///
/// ```swift
/// let ann = try context.insert("Person", values: ["name": "Ann", "age": 31])
/// try ann.setValue(32, forKey: "age")
/// print(ann["age"])  // Optional(32)
/// ```
///
/// - Important: Confined to the context's queue.
public final class ManagedObject {
  // Exclusivity is not checked at run time on `values`, `relationships`,
  // `committed` and `touchedAttributes`: every access is on the context's
  // queue, and none overlaps another (no access hands out an inout
  // reference that outlives the statement). The checks would cost about a
  // quarter of a compiled predicate's evaluation.

  /// Attribute values, by slot. Declared first, so that it lies next to
  /// the object's header (its reference count): an indexed fetch reads
  /// both for each candidate, mostly from one cache line.
  @exclusivity(unchecked) package internal(set) var values: [FilterValue]
  /// The object's identity, stable for its whole life.
  public let objectID: ObjectID
  package let layout: EntityLayout
  /// The context the object lives in, or nil once the context is gone.
  public weak let context: ObjectContext?
  /// The `serial` of the context the object was made in: ownership checks
  /// compare it, without loading the weak reference.
  let contextSerial: UInt64
  /// Relationship destinations, by slot.
  @exclusivity(unchecked) package internal(set) var relationships: [RelationshipTargets]
  /// Values and relationships as of the last save, kept from the first
  /// change after it; nil while the object is unchanged.
  @exclusivity(unchecked) var committed: (values: [FilterValue], relationships: [RelationshipTargets])?
  /// The attribute slots set since the last save, as
  /// ``ObjectUpdate/attributeBit(_:)`` numbers them: the only ones a save
  /// compares with `committed`. Cleared with `committed`.
  @exclusivity(unchecked) var touchedAttributes: UInt64 = 0
  /// The object as pending-change observers last saw it, kept from its
  /// first change after the context last published its pending changes,
  /// while some observer follows them; nil otherwise (see
  /// `ObjectContext.notePending(_:)`).
  @exclusivity(unchecked) var published: PublishedImage?
  var lifecycle: Lifecycle
  /// The object's position in its entity's member list, for O(1) removal.
  var memberIndex = 0

  enum Lifecycle {
    /// Inserted since the last save.
    case inserted
    /// Saved, and not deleted.
    case registered
    /// Deleted since the last save (it had been saved before).
    case deleted
    /// Gone: deleted and saved, or inserted and deleted before any save.
    case invalid
  }

  /// An object's values and relationships as last published, and whether
  /// it existed then (live: inserted or saved, not deleted).
  final class PublishedImage {
    let values: [FilterValue]
    let relationships: [RelationshipTargets]
    let existed: Bool

    init(values: [FilterValue], relationships: [RelationshipTargets], existed: Bool) {
      self.values = values
      self.relationships = relationships
      self.existed = existed
    }
  }

  init(objectID: ObjectID, layout: EntityLayout, context: ObjectContext) {
    self.objectID = objectID
    self.layout = layout
    self.context = context
    contextSerial = context.serial
    values = layout.initialValues
    relationships = layout.initialRelationships
    lifecycle = .inserted
  }

  /// The entity's name: `"Person"`.
  public var entityName: String { layout.name }

  /// Whether the object was inserted since the last save.
  public var isInserted: Bool { lifecycle == .inserted }

  /// Whether the object was deleted: since the last save, or before it.
  public var isDeleted: Bool { lifecycle == .deleted || lifecycle == .invalid }

  /// Whether the object has changes since the last save.
  public var hasChanges: Bool {
    switch lifecycle {
    case .inserted, .deleted: true
    case .registered:
      // As a save tells changed keys: a value neither identical (a NaN set
      // over itself) nor equal to its saved one, or other destinations.
      committed.map { committed in
        committed.relationships != relationships
          || zip(committed.values, values).contains { old, new in new.difference(from: old) == .value }
      } ?? false
    case .invalid: false
    }
  }

  /// The value of an attribute, or the destinations of a relationship as an
  /// array of object identifiers; nil for a key the entity does not have.
  public subscript(key: String) -> FilterValue? {
    switch layout.slot(key) {
    case .attribute(let slot): values[slot]
    case .relationship: nil
    case nil: nil
    }
  }

  /// The destinations of a relationship, or nil for a key that is not one.
  public func targets(of relationship: String) -> RelationshipTargets? {
    guard case .relationship(let slot) = layout.slot(relationship) else { return nil }
    return relationships[slot]
  }

  /// Sets an attribute, or a relationship to the objects whose identifiers
  /// `value` holds. See ``ObjectContext/setValue(_:forKey:of:)``.
  ///
  /// - Throws: ``ObjectGraphError`` for an unknown key, a value of the wrong
  ///   type, or a deleted object.
  public func setValue(_ value: FilterValue, forKey key: String) throws(ObjectGraphError) {
    try liveContext().setValue(value, forKey: key, of: self)
  }

  /// Points a to-one relationship at `destination`, or clears it, keeping
  /// the inverse consistent. See ``ObjectContext/setRelationship(_:of:to:)``.
  public func setRelationship(_ key: String, to destination: ManagedObject?) throws(ObjectGraphError) {
    try liveContext().setRelationship(key, of: self, to: destination)
  }

  /// Adds `destination` to a to-many relationship, keeping the inverse
  /// consistent.
  public func add(_ destination: ManagedObject, to key: String) throws(ObjectGraphError) {
    try liveContext().add(destination, to: key, of: self)
  }

  /// Removes `destination` from a to-many relationship, keeping the inverse
  /// consistent.
  public func remove(_ destination: ManagedObject, from key: String) throws(ObjectGraphError) {
    try liveContext().remove(destination, from: key, of: self)
  }

  /// An immutable copy of the object's current values, safe to send to any
  /// queue. Cheap: the storage is shared until the object changes.
  public func snapshot() -> ObjectSnapshot {
    ObjectSnapshot(objectID: objectID, layout: layout, values: values, relationships: relationships)
  }

  private func liveContext() throws(ObjectGraphError) -> ObjectContext {
    guard let context else {
      throw ObjectGraphError(.invalidObject, "\(layout.name) \(objectID) outlived its context")
    }
    return context
  }
}

extension ManagedObject: CustomStringConvertible {
  /// `Person #3 {age: 31, name: "Ann"}`.
  public var description: String { snapshot().description }
}
