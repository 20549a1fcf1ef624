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
