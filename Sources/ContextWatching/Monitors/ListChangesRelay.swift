/// An observer of a ``ListMonitor`` that takes each change as a whole, once
/// the list holds it, instead of object by object: how a
/// ``RecordListMonitor`` hears its list.
///
/// The monitor calls ``listMonitor(_:didApply:)`` where it would call a
/// ``ListObjectObserver``'s methods: after "will change" and the change,
/// before "did change", with the changes (empty when a save changed only
/// objects beyond the limit).
protocol ListChangesRelay: ListObserver {
  /// The list changed by `changes`; the monitor holds the new content.
  func listMonitor(_ monitor: ListMonitor, didApply changes: ListChanges)
}
