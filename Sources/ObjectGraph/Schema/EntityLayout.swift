package import PredicateDSL

/// An entity as the context stores it: every property, inherited ones
/// first, at a fixed slot, and the entity's place in the inheritance tree.
///
/// Layouts are built once by ``ObjectSchema`` and never change, so they are
/// shared by every object, snapshot and compiled predicate of the entity.
package final class EntityLayout: Sendable {
  /// The entity's index in its schema.
  package let index: Int
  /// The entity's name.
  package let name: String
  /// The index of the parent entity.
  package let parentIndex: Int?
  /// The indexes of this entity and every entity below it.
  package let kindIndexes: [Int]
  /// The indexes of this entity and every entity above it.
  package let ancestorIndexes: [Int]
  /// The names of this entity and every entity above it.
  package let ancestorNames: [String]
  /// Attributes, inherited first, by slot.
  package let attributes: [AttributeDescription]
  /// Relationships, inherited first, by slot.
  package let relationships: [RelationshipLayout]
  /// Slots by key, for entities with many keys.
  private let slotIndex: [String: PropertySlot]
  /// Keys and slots in slot order, scanned for entities with few keys: a
  /// short key compares in a word or two, cheaper than hashing it.
  private let slotList: [(key: String, slot: PropertySlot)]
  /// Each key alone in an array, attributes then relationships in slot
  /// order: the changed keys of an update that changes one key, shared by
  /// every such update instead of an array made for each.
  package let singleKeys: [[String]]
  /// The values a new object starts with.
  package let initialValues: [FilterValue]
  /// The relationship values a new object starts with.
  package let initialRelationships: [RelationshipTargets]
  /// Keys whose changes watchers ignore, inherited ones included.
  package let ignoredKeys: Set<String>
  /// The slots of the attributes marked indexed, inherited ones included.
  package let indexedSlots: [Int]
  /// The slots of the required attributes, which a save checks hold values,
  /// as bits (``ObjectUpdate``'s attribute bits: bit 63 stands for every
  /// slot from 63 on).
  package let requiredAttributes: UInt64
  /// The slots of the required relationships, which a save checks are not
  /// empty.
  package let requiredRelationshipSlots: [Int]

  init(
    index: Int, name: String, parentIndex: Int?, kindIndexes: [Int], ancestorIndexes: [Int],
    ancestorNames: [String], attributes: [AttributeDescription], relationships: [RelationshipLayout],
    ignoredKeys: Set<String>
  ) {
    self.index = index
    self.name = name
    self.parentIndex = parentIndex
    self.kindIndexes = kindIndexes
    self.ancestorIndexes = ancestorIndexes
    self.ancestorNames = ancestorNames
    self.attributes = attributes
    self.relationships = relationships
    self.ignoredKeys = ignoredKeys
    indexedSlots = attributes.indices.filter { attributes[$0].isIndexed }
    var list: [(key: String, slot: PropertySlot)] = []
    for (slot, attribute) in attributes.enumerated() { list.append((attribute.name, .attribute(slot))) }
    for (slot, relationship) in relationships.enumerated() { list.append((relationship.name, .relationship(slot))) }
    slotList = list
    singleKeys = list.map { [$0.key] }
    slotIndex = Dictionary(list.map { ($0.key, $0.slot) }, uniquingKeysWith: { first, _ in first })
    initialValues = attributes.map { $0.defaultValue ?? .null }
    initialRelationships = relationships.map { $0.isToMany ? .toMany([]) : .toOne(nil) }
    requiredAttributes = attributes.indices.reduce(0) { bits, slot in
      attributes[slot].isOptional ? bits : bits | ObjectUpdate.attributeBit(slot)
    }
    requiredRelationshipSlots = relationships.indices.filter { !relationships[$0].description.isOptional }
  }

  /// Where `key` is stored, or nil when the entity has no such key.
  package func slot(_ key: String) -> PropertySlot? {
    if slotList.count > 16 { return slotIndex[key] }
    for entry in slotList where entry.key == key { return entry.slot }
    return nil
  }

  /// Whether an object of this entity is also an object of `other`.
  package func isKind(of other: EntityLayout) -> Bool {
    ancestorIndexes.contains(other.index)
  }

  /// Every key, attributes then relationships, in slot order.
  package var keys: [String] {
    attributes.map(\.name) + relationships.map(\.name)
  }
}
