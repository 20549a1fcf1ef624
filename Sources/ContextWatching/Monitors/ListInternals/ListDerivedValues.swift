import ObjectGraph
import PredicateDSL

/// The derived values (``ListOrder/paths``) of the objects a list holds,
/// by identifier: a list whose order reads through relationships keeps
/// them here rather than in each ``ListedObject``, so that the list's
/// elements of every other order are a word smaller.
///
/// One table belongs to one ``ListOrder``, which reads it when it compares
/// an object the list holds on a key path. It must hold, for every object
/// in the list's tree, the derived values that object was inserted with:
/// ``ListState`` writes an object's entry when it inserts or updates the
/// object and removes it when the object leaves.
///
/// `@unchecked Sendable`: its dictionary is read and written only where the
/// list's state is, on the monitor's delivery queue under its state lock,
/// or by a reader under that lock (``ListMonitor``), which orders every
/// access. A list built aside for a new request or a refetch loads the
/// table of the new request's order, which no reader reaches until that
/// list replaces the old one under the lock. The saving thread holds that
/// same order to make edits, and reads only its keys and paths
/// (``ListOrder/listed(_:derived:)``, ``ListOrder/derivedValues(of:in:)``),
/// never the table. A ``ListContent`` handed to a reader holds the order
/// too: the content's reads are by position and never compare objects,
/// and `ListContent.rank(of:)` is for the list's own
/// content, under the lock.
final class ListDerivedValues: @unchecked Sendable {
  private var values: [ObjectID: [FilterValue]] = [:]

  /// The derived values of the listed object `id`.
  subscript(id: ObjectID) -> [FilterValue]? {
    get { values[id] }
    set { values[id] = newValue }
  }

  /// The value of key path `path` of the listed object `id`.
  ///
  /// - Precondition: The list holds `id`.
  func value(of id: ObjectID, path: Int) -> FilterValue {
    guard let derived = values[id] else { preconditionFailure("a listed object's derived values are missing") }
    return derived[path]
  }

  /// Replaces every entry by `values`.
  func replaceAll(with values: [ObjectID: [FilterValue]]) { self.values = values }
}
