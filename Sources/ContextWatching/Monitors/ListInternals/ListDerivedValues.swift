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
/// list's state is, on the monitor's delivery queue or under its state
/// lock (``ListMonitor``), which orders every access; a list being built
/// aside (a new request) has an order of its own, and so a table of its
/// own, until it replaces the old list under that lock.
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
