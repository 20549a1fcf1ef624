import ObjectGraph
import PredicateDSL

/// One side of a save as predicates see it: the graph before the save, or
/// after it. Objects the save changed come from its snapshots; the others
/// from the context (unchanged by the save, so the same on both sides), or
/// are unknown when the watcher is fed change values without a context.
final class SaveGraph {
  enum Side { case before, after }

  let side: Side
  let save: ContextSave
  /// The live context, read on its queue; nil for an external source.
  let context: ObjectContext?
  private var changed: [ObjectID: ObjectSnapshot?]?

  init(side: Side, save: ContextSave, context: ObjectContext?) {
    self.side = side
    self.save = save
    self.context = context
  }

  /// The object with `id` on this side, or nil when it does not exist there.
  func snapshot(of id: ObjectID) -> ObjectSnapshot? {
    if changed == nil { changed = index() }
    if let entry = changed![id] { return entry }
    return context?.object(with: id)?.snapshot()
  }

  private func index() -> [ObjectID: ObjectSnapshot?] {
    var index: [ObjectID: ObjectSnapshot?] = [:]
    index.reserveCapacity(save.count)
    switch side {
    case .before:
      for snapshot in save.inserted { index[snapshot.objectID] = .some(nil) }
      for update in save.updated { index[update.objectID] = update.before }
      for snapshot in save.deleted { index[snapshot.objectID] = snapshot }
    case .after:
      for snapshot in save.inserted { index[snapshot.objectID] = snapshot }
      for update in save.updated { index[update.objectID] = update.after }
      for snapshot in save.deleted { index[snapshot.objectID] = .some(nil) }
    }
    return index
  }
}

/// An object on one side of a save: what watch predicates evaluate.
struct WatchImage: GraphObject {
  let snapshot: ObjectSnapshot
  let graph: SaveGraph

  var layout: EntityLayout { snapshot.layout }
  func attribute(_ slot: Int) -> FilterValue { snapshot.values[slot] }
  /// An attribute as a range index compares it (nil for nil, strings and
  /// other values without a numeric order), read in place: no copy of the
  /// value.
  func rangeKey(_ slot: Int) -> RangeKey? {
    snapshot.values.withUnsafeBufferPointer { values in
      // Checked in release builds too, as the array's subscript would be:
      // a snapshot of another schema must trap, not read past its values.
      precondition(slot < values.count, "attribute slot \(slot) is past the snapshot's \(values.count) values")
      return RangeKey(values[slot])
    }
  }
  func targets(_ slot: Int) -> RelationshipTargets { snapshot.relationships[slot] }
  func related(_ id: ObjectID) -> WatchImage? {
    graph.snapshot(of: id).map { WatchImage(snapshot: $0, graph: graph) }
  }
  static var followsRelationships: Bool { true }
}
