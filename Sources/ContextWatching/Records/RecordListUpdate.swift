public import ObjectGraph

/// One change of a ``RecordListMonitor``'s list as its closures and its
/// async sequence deliver it: what changed, with each changed object read as
/// a record once, and the content after the change.
public struct RecordListUpdate<Record: EntityRecord & Sendable>: Sendable {
  /// The batch update from the previous content to ``content``.
  public let changes: RecordListChanges<Record>
  /// The list after the change.
  public let content: RecordListContent<Record>

  @usableFromInline
  init(changes: RecordListChanges<Record>, content: RecordListContent<Record>) {
    self.changes = changes
    self.content = content
  }

  /// The same update with snapshots, as ``ListMonitor`` delivers it.
  public var untyped: ListMonitorUpdate { ListMonitorUpdate(changes: changes.untyped, content: content.untyped) }
}
