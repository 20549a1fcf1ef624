package import PredicateDSL

/// An object as a compiled predicate reads it: attribute values and
/// relationship destinations by slot, and the objects its relationships
/// point to in the same image of the graph.
///
/// Live objects, snapshots and (in the watcher) before-and-after images of a
/// save all conform, so one resolver serves them all.
package protocol GraphObject: SendableMetatype {
  /// The object's entity.
  var layout: EntityLayout { get }
  /// The value of the attribute at `slot`.
  func attribute(_ slot: Int) -> FilterValue
  /// The destinations of the relationship at `slot`.
  func targets(_ slot: Int) -> RelationshipTargets
  /// The object with `id` in the same image of the graph, or nil.
  func related(_ id: ObjectID) -> Self?
  /// Whether `related(_:)` can follow relationships at all.
  static var followsRelationships: Bool { get }
}
