import ObjectGraph
import PredicateDSL

/// A listed object's values as a search compares them, read in place from
/// the arrays the list keeps for it (its value table and its derived
/// values), so that finding the object retains nothing: building a
/// ``ListedObject`` to search with would retain its entity layout and its
/// arrays, and release them after.
///
/// Valid only while the arrays it points into are neither changed nor
/// released: made and used inside their `withUnsafeBufferPointer`
/// (invariant 8 in Support/OrderStatisticTree/OrderStatisticTree.swift).
struct ListProbe: ListSortValues {
  let key: ListSortKey
  let objectID: ObjectID
  /// The object's attribute values, in its entity's slots.
  let values: UnsafeBufferPointer<FilterValue>
  /// One value per ``ListOrder/paths`` entry; empty when the order reads
  /// no relationship.
  let derived: UnsafeBufferPointer<FilterValue>

  func sortValue(_ source: ListOrder.Source) -> FilterValue? {
    // Unchecked reads in range: invariant 8 in Support/OrderStatisticTree/OrderStatisticTree.swift.
    switch source {
    case .attribute(let slot): values[slot]
    case .path(let path): derived[path]
    }
  }
}
