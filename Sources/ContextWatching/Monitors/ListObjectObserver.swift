public import ObjectGraph

/// Observes a ``ListMonitor`` object by object: CoreStore's
/// `ListObjectObserver`. Between will-change and did-change, the monitor
/// calls these for each change, deletions first, in the coordinates of
/// ``ListChanges``.
public protocol ListObjectObserver: ListObserver {
  /// An object is no longer listed; `indexPath` is in the old list.
  func listMonitor(_ monitor: ListMonitor, didDelete object: ObjectSnapshot, at indexPath: ListIndexPath)
  /// An object is newly listed; `indexPath` is in the new list.
  func listMonitor(_ monitor: ListMonitor, didInsert object: ObjectSnapshot, at indexPath: ListIndexPath)
  /// A listed object changed values and kept its place; `indexPath` is in
  /// the new list.
  func listMonitor(
    _ monitor: ListMonitor, didUpdate object: ObjectSnapshot, at indexPath: ListIndexPath, changedKeys: [String])
  /// A listed object changed place, from an index path of the old list to
  /// one of the new.
  func listMonitor(
    _ monitor: ListMonitor, didMove object: ObjectSnapshot, from: ListIndexPath, to: ListIndexPath,
    changedKeys: [String])
}

extension ListObjectObserver {
  /// Does nothing.
  public func listMonitor(_ monitor: ListMonitor, didDelete object: ObjectSnapshot, at indexPath: ListIndexPath) {}
  /// Does nothing.
  public func listMonitor(_ monitor: ListMonitor, didInsert object: ObjectSnapshot, at indexPath: ListIndexPath) {}
  /// Does nothing.
  public func listMonitor(
    _ monitor: ListMonitor, didUpdate object: ObjectSnapshot, at indexPath: ListIndexPath, changedKeys: [String]
  ) {}
  /// Does nothing.
  public func listMonitor(
    _ monitor: ListMonitor, didMove object: ObjectSnapshot, from: ListIndexPath, to: ListIndexPath,
    changedKeys: [String]
  ) {}
}
