import ObjectGraph

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
