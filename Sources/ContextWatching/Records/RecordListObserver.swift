public import ObjectGraph

/// Observes a ``RecordListMonitor``: CoreStore's `ListObserver`,
/// `ListObjectObserver` and `ListSectionObserver` for a list of records, in
/// one protocol whose methods each have an empty default.
///
/// Between will-change and did-change, the monitor calls the others for
/// each change in the order of ``ListSectionObserver``: deleted objects,
/// deleted sections, inserted sections, inserted objects, moves, updates.
/// Each change carries its object's record, decoded once for every
/// observer. The monitor holds its observers weakly and calls them on its
/// scheduler.
///
/// ```swift
/// final class PeopleTable: RecordListObserver {
///   func listMonitor(_ monitor: RecordListMonitor<Person>, didInsert change: RecordListChanges<Person>.Change) {
///     if case .success(let person) = change.record { print("insert", person.name, "at", change.indexPath) }
///   }
/// }
/// ```
public protocol RecordListObserver<Record>: AnyObject, Sendable {
  /// The record type the monitor lists.
  associatedtype Record: EntityRecord & Sendable

  /// The list is about to change: the monitor still holds the old content.
  func listMonitorWillChange(_ monitor: RecordListMonitor<Record>)
  /// An object is no longer listed; its index path is in the old list.
  func listMonitor(_ monitor: RecordListMonitor<Record>, didDelete change: RecordListChanges<Record>.Change)
  /// A section is gone; `index` is in the old list.
  func listMonitor(_ monitor: RecordListMonitor<Record>, didDeleteSection section: ListSectionInfo, at index: Int)
  /// A section is new; `index` is in the new list.
  func listMonitor(_ monitor: RecordListMonitor<Record>, didInsertSection section: ListSectionInfo, at index: Int)
  /// An object is newly listed; its index path is in the new list.
  func listMonitor(_ monitor: RecordListMonitor<Record>, didInsert change: RecordListChanges<Record>.Change)
  /// A listed object changed place, from an index path of the old list to
  /// one of the new.
  func listMonitor(_ monitor: RecordListMonitor<Record>, didMove move: RecordListChanges<Record>.Move)
  /// A listed object changed values and kept its place; its index path is
  /// in the new list.
  func listMonitor(_ monitor: RecordListMonitor<Record>, didUpdate change: RecordListChanges<Record>.Change)
  /// The list changed: the monitor holds the new content.
  func listMonitorDidChange(_ monitor: RecordListMonitor<Record>)
  /// The list is about to be fetched again: the change before
  /// ``listMonitorDidRefetch(_:)`` replaces it (see
  /// ``ListObserver/listMonitorWillRefetch(_:)``).
  func listMonitorWillRefetch(_ monitor: RecordListMonitor<Record>)
  /// The list was fetched again.
  func listMonitorDidRefetch(_ monitor: RecordListMonitor<Record>)
}

extension RecordListObserver {
  /// Does nothing.
  public func listMonitorWillChange(_ monitor: RecordListMonitor<Record>) {}
  /// Does nothing.
  public func listMonitor(_ monitor: RecordListMonitor<Record>, didDelete change: RecordListChanges<Record>.Change) {}
  /// Does nothing.
  public func listMonitor(
    _ monitor: RecordListMonitor<Record>, didDeleteSection section: ListSectionInfo, at index: Int
  ) {}
  /// Does nothing.
  public func listMonitor(
    _ monitor: RecordListMonitor<Record>, didInsertSection section: ListSectionInfo, at index: Int
  ) {}
  /// Does nothing.
  public func listMonitor(_ monitor: RecordListMonitor<Record>, didInsert change: RecordListChanges<Record>.Change) {}
  /// Does nothing.
  public func listMonitor(_ monitor: RecordListMonitor<Record>, didMove move: RecordListChanges<Record>.Move) {}
  /// Does nothing.
  public func listMonitor(_ monitor: RecordListMonitor<Record>, didUpdate change: RecordListChanges<Record>.Change) {}
  /// Does nothing.
  public func listMonitorDidChange(_ monitor: RecordListMonitor<Record>) {}
  /// Does nothing.
  public func listMonitorWillRefetch(_ monitor: RecordListMonitor<Record>) {}
  /// Does nothing.
  public func listMonitorDidRefetch(_ monitor: RecordListMonitor<Record>) {}
}
