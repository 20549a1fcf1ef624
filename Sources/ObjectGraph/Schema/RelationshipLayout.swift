/// A relationship with its destination and inverse resolved to indexes.
package struct RelationshipLayout: Hashable, Sendable {
  package let description: RelationshipDescription
  package let destinationIndex: Int
  /// The inverse's slot in the destination entity's relationships.
  package let inverseSlot: Int

  package var name: String { description.name }
  package var isToMany: Bool { description.isToMany }
}
