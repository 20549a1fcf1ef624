import ObjectGraph
import PredicateDSL

/// What a list's order reads of an object: its encoded first sort values,
/// each sort value, and its identifier, which breaks ties.
///
/// A ``ListedObject`` is one; a ``ListProbe`` stands for one in a search.
protocol ListSortValues {
  /// The first two sort values, encoded.
  var key: ListSortKey { get }
  var objectID: ObjectID { get }
  /// The object's value where the list's sort key `source` reads it.
  func sortValue(_ source: ListOrder.Source) -> FilterValue
}

/// An edit's object after the edit (``ListEdit/new``), read in place
/// through a pointer to the optional: a comparison reads the fields it
/// needs, where unwrapping the optional would copy the object (its
/// references retained, then released). Read only where the edit has an
/// object (invariant 9 in Support/OrderStatisticTree/OrderStatisticTree.swift).
extension Optional: ListSortValues where Wrapped == ListedObject {
  var key: ListSortKey {
    switch self {
    case .some(let object): object.key
    case .none: preconditionFailure("an edit without an object has no sort values")
    }
  }

  var objectID: ObjectID {
    switch self {
    case .some(let object): object.objectID
    case .none: preconditionFailure("an edit without an object has no sort values")
    }
  }

  func sortValue(_ source: ListOrder.Source) -> FilterValue {
    switch self {
    case .some(let object): object.sortValue(source)
    case .none: preconditionFailure("an edit without an object has no sort values")
    }
  }
}
