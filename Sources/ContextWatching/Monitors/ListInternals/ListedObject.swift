import ObjectGraph
import PredicateDSL

/// One listed object: its latest snapshot, the values of the sort keys
/// that read through relationships (which the snapshot cannot answer), and
/// its first sort values encoded for comparison.
///
/// Made by ``ListOrder/listed(_:derived:)``, which computes ``key`` from
/// the other two: `key` must always encode the object's current values.
struct ListedObject: Sendable, OrderStatisticElement, ListSortValues {
  var snapshot: ObjectSnapshot
  /// One value per ``ListOrder/paths`` entry; empty when the order reads
  /// no relationship.
  var derived: [FilterValue]
  /// The first two sort values, encoded.
  var key: ListSortKey

  var objectID: ObjectID { snapshot.objectID }

  var weight: Int { 1 }

  func sortValue(_ source: ListOrder.Source) -> FilterValue {
    switch source {
    case .attribute(let slot): snapshot.values[slot]
    case .path(let path): derived[path]
    }
  }
}
