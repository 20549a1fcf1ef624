import ObjectGraph

/// One object a save may have changed in a list: what it is now, if it
/// matches the list's predicate.
struct ListEdit: Sendable {
  let objectID: ObjectID
  /// The object as it is after the save, when it matches the predicate;
  /// nil when it does not (exited, deleted).
  var new: ListedObject?
  /// The keys that changed; for a change through a relationship, the
  /// relationship's name.
  var changedKeys: [String]
  /// Whether the edit comes from a change of a related object: it applies
  /// only to an object that is listed already (the watch reports entering
  /// and exiting on its own).
  var isRelatedOnly: Bool
}
