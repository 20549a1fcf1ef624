/// Observes a ``ListMonitor``'s sections too: CoreStore's
/// `ListSectionObserver`. Section deletions come before object insertions,
/// section insertions before them too.
public protocol ListSectionObserver: ListObjectObserver {
  /// A section is gone; `index` is in the old list.
  func listMonitor(_ monitor: ListMonitor, didDeleteSection section: ListSectionInfo, at index: Int)
  /// A section is new; `index` is in the new list.
  func listMonitor(_ monitor: ListMonitor, didInsertSection section: ListSectionInfo, at index: Int)
}

extension ListSectionObserver {
  /// Does nothing.
  public func listMonitor(_ monitor: ListMonitor, didDeleteSection section: ListSectionInfo, at index: Int) {}
  /// Does nothing.
  public func listMonitor(_ monitor: ListMonitor, didInsertSection section: ListSectionInfo, at index: Int) {}
}
