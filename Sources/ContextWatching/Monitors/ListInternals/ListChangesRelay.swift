/// What a ``ListMonitor`` tells the monitor built on it (a
/// ``RecordListMonitor``'s relay) of each change: that it will come, and
/// then the change as a whole, once the list holds it.
///
/// The list monitor calls ``listMonitorWillChange(_:)`` before its
/// observers' "will change", and ``listMonitor(_:didApply:)`` after the
/// change, before its observers' callbacks, with the changes (empty when a
/// save changed only objects outside the window).
protocol ListChangesRelay: AnyObject, Sendable {
  /// The list is about to change: the monitor still holds the old content.
  func listMonitorWillChange(_ monitor: ListMonitor)
  /// The list is about to be fetched again.
  func listMonitorWillRefetch(_ monitor: ListMonitor)
  /// The list was fetched again.
  func listMonitorDidRefetch(_ monitor: ListMonitor)
  /// The list changed by `changes`; the monitor holds the new content.
  func listMonitor(_ monitor: ListMonitor, didApply changes: ListChanges)
}
