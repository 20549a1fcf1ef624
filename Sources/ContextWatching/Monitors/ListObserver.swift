import ObjectGraph

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
  /// The list is about to be fetched again (``ListMonitor/refetch()`` or
  /// ``ListMonitor/setRequest(_:)``): the change between this call and
  /// ``listMonitorDidRefetch(_:)`` replaces the list, and it is the only
  /// one (CoreStore's `listMonitorWillRefetch`).
  func listMonitorWillRefetch(_ monitor: ListMonitor)
  /// The list was fetched again: the monitor holds the new list and
  /// request.
  func listMonitorDidRefetch(_ monitor: ListMonitor)
}

extension ListObserver {
  /// Does nothing.
  public func listMonitorWillChange(_ monitor: ListMonitor) {}
  /// Does nothing.
  public func listMonitorDidChange(_ monitor: ListMonitor) {}
  /// Does nothing.
  public func listMonitorWillRefetch(_ monitor: ListMonitor) {}
  /// Does nothing.
  public func listMonitorDidRefetch(_ monitor: ListMonitor) {}
}
