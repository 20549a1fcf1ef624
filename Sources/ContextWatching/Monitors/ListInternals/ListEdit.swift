import ObjectGraph
import PredicateDSL

/// One object a save may have changed in a list: what it is now, if it
/// matches the list's predicate.
struct ListEdit: Sendable {
  let objectID: ObjectID
  /// The object as it is after the save, when it matches the predicate;
  /// nil when it does not (exited, deleted).
  var new: ListedObject?
  /// The new object's values through the order's key paths (one per
  /// ``ListOrder/paths`` entry), which the list keeps once it holds the
  /// object; empty when the order reads no relationship or there is no
  /// new object.
  var derived: [FilterValue]
  /// The keys that changed; for a change through a relationship, the
  /// relationship's name.
  var changedKeys: [String]
  /// Whether the edit comes from a change of a related object: it applies
  /// only to an object that is listed already (the watch reports entering
  /// and exiting on its own).
  var isRelatedOnly: Bool
}
