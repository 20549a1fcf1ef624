import ObjectGraph
import PredicateDSL

/// One side of a save as predicates see it: the graph before the save, or
/// after it. Objects the save changed come from its snapshots; the others
/// from the context (unchanged by the save, so the same on both sides), or
/// are unknown when the watcher is fed change values without a context.
///
/// A side and the save's shared `SaveSides`: both sides of a save share one
/// object, so classifying a save allocates one, and copies the save once.
struct SaveGraph {
  enum Side { case before, after }

  let side: Side
  let sides: SaveSides

  init(side: Side, sides: SaveSides) {
    self.side = side
    self.sides = sides
  }

  /// A side of its own, for one-off uses (`explain`).
  init(side: Side, save: ContextSave, context: ObjectContext?) {
    self.init(side: side, sides: SaveSides(save: save, context: context))
  }

  /// The object with `id` on this side, or nil when it does not exist there.
  func snapshot(of id: ObjectID) -> ObjectSnapshot? { sides.snapshot(of: id, on: side) }
}

/// Both sides of one save, each indexed by object identifier when first
/// asked (only watches that read through relationships ask).
final class SaveSides {
  let save: ContextSave
  /// The live context, read on its queue; nil for an external source.
  let context: ObjectContext?
  private var before: [ObjectID: ObjectSnapshot?]?
  private var after: [ObjectID: ObjectSnapshot?]?

  init(save: ContextSave, context: ObjectContext?) {
    self.save = save
    self.context = context
  }

  /// The object with `id` on `side`, or nil when it does not exist there.
  func snapshot(of id: ObjectID, on side: SaveGraph.Side) -> ObjectSnapshot? {
    let entry: ObjectSnapshot??
    switch side {
    case .before:
      if before == nil { before = index(.before) }
      entry = before.unsafelyUnwrapped[id]
    case .after:
      if after == nil { after = index(.after) }
      entry = after.unsafelyUnwrapped[id]
    }
    if let entry { return entry }
    return context?.object(with: id)?.snapshot()
  }

  private func index(_ side: SaveGraph.Side) -> [ObjectID: ObjectSnapshot?] {
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
  /// Calls `body` with an attribute read in place (no copy of the value).
  @inline(__always)
  func withAttribute<Result>(_ slot: Int, _ body: (borrowing FilterValue) -> Result) -> Result {
    snapshot.values.withUnsafeBufferPointer { values in
      precondition(slot < values.count, "attribute slot \(slot) is past the snapshot's \(values.count) values")
      // Through the pointer's addressor: the buffer's subscript would copy
      // the value (a retain of a string's storage).
      return body(values.baseAddress.unsafelyUnwrapped[slot])
    }
  }
  func targets(_ slot: Int) -> RelationshipTargets { snapshot.relationships[slot] }
  func related(_ id: ObjectID) -> WatchImage? {
    graph.snapshot(of: id).map { WatchImage(snapshot: $0, graph: graph) }
  }
  static var followsRelationships: Bool { true }
}
