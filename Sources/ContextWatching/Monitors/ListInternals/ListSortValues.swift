import ObjectGraph
import PredicateDSL

/// What a list's order reads of an object: its encoded first sort values,
/// each sort value, and its identifier, which breaks ties.
///
/// A ``ListedObject`` (an object the list holds) is one; a ``ListProbe``
/// stands for one in a search; a ``ListEdit`` is its object after a save.
protocol ListSortValues {
  /// The first two sort values, encoded.
  var key: ListSortKey { get }
  var objectID: ObjectID { get }
  /// The object's value where the list's sort key `source` reads it; nil
  /// for a key path of an object the list holds, whose derived values are
  /// the list's (``ListOrder/listedValue(_:of:)`` reads them there).
  func sortValue(_ source: ListOrder.Source) -> FilterValue?
}

extension ListSortValues {
  /// The object's value where `order`'s sort key `source` reads it: its
  /// own, or for a key path of an object the list holds, the list's.
  @inline(__always)
  func sortValue(_ source: ListOrder.Source, in order: ListOrder) -> FilterValue {
    sortValue(source) ?? order.listedValue(source, of: objectID)
  }
}

/// An edit's object after the edit (``ListEdit/new``) with its derived
/// values, read in place through a pointer to the edit: a comparison reads
/// the fields it needs, where unwrapping the optional would copy the object
/// (its references retained, then released). Read only where the edit has
/// an object (invariant 9 in Support/OrderStatisticTree/OrderStatisticTree.swift).
extension ListEdit: ListSortValues {
  // Each read goes through `new?.`, in place: binding `new` to a name
  // (`case .some(let object)`) would copy the object.
  var key: ListSortKey {
    guard let key = new?.key else { preconditionFailure("an edit without an object has no sort values") }
    return key
  }

  func sortValue(_ source: ListOrder.Source) -> FilterValue? {
    switch source {
    case .attribute(let slot):
      guard let value = new?.snapshot.values[slot] else {
        preconditionFailure("an edit without an object has no sort values")
      }
      return value
    case .path(let path):
      return derived[path]
    }
  }
}
