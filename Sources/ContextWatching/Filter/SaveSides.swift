import ObjectGraph

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
