public import ObjectGraph

/// Observes a ``ListMonitor``: told before and after each change of the
/// list, on the monitor's scheduler. CoreStore's `ListObserver`.
///
/// The monitor holds its observers weakly. Each method has an empty default
/// implementation.
public protocol ListObserver: AnyObject, Sendable {
  /// The list is about to change: the monitor still holds the old content.
  func listMonitorWillChange(_ monitor: ListMonitor)
  /// The list changed: the monitor holds the new content.
  func listMonitorDidChange(_ monitor: ListMonitor)
}

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

/// Observes a ``ListMonitor``'s sections too: CoreStore's
/// `ListSectionObserver`. Section deletions come before object insertions,
/// section insertions before them too.
public protocol ListSectionObserver: ListObjectObserver {
  /// A section is gone; `index` is in the old list.
  func listMonitor(_ monitor: ListMonitor, didDeleteSection section: ListSectionInfo, at index: Int)
  /// A section is new; `index` is in the new list.
  func listMonitor(_ monitor: ListMonitor, didInsertSection section: ListSectionInfo, at index: Int)
}

extension ListObserver {
  /// Does nothing.
  public func listMonitorWillChange(_ monitor: ListMonitor) {}
  /// Does nothing.
  public func listMonitorDidChange(_ monitor: ListMonitor) {}
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

extension ListSectionObserver {
  /// Does nothing.
  public func listMonitor(_ monitor: ListMonitor, didDeleteSection section: ListSectionInfo, at index: Int) {}
  /// Does nothing.
  public func listMonitor(_ monitor: ListMonitor, didInsertSection section: ListSectionInfo, at index: Int) {}
}

/// One change of a list as the closure form and the async sequence deliver
/// it: what changed, and the content after the change.
public struct ListMonitorUpdate: Sendable {
  /// The batch update from the previous content to ``content``.
  public var changes: ListChanges
  /// The list after the change.
  public var content: ListContent
}
