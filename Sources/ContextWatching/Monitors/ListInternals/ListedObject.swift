import ObjectGraph
import PredicateDSL

/// One listed object as the list holds it: its latest snapshot and its
/// first sort values encoded for comparison. Values read through
/// relationships (which the snapshot cannot answer) are the list's
/// (``ListDerivedValues``).
///
/// Made by ``ListOrder/listed(_:derived:)``, which computes ``key`` from
/// the snapshot and the derived values: `key` must always encode the
/// object's current values.
struct ListedObject: Sendable, OrderStatisticElement, ListSortValues {
  var snapshot: ObjectSnapshot
  /// The first two sort values, encoded.
  var key: ListSortKey

  var objectID: ObjectID { snapshot.objectID }

  var weight: Int { 1 }

  /// The attribute's value; nil for a key path, whose value is the list's.
  func sortValue(_ source: ListOrder.Source) -> FilterValue? {
    switch source {
    case .attribute(let slot): snapshot.values[slot]
    case .path: nil
    }
  }
}
