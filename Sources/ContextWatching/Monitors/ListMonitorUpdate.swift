/// One change of a list as the closure form and the async sequence deliver
/// it: what changed, and the content after the change.
public struct ListMonitorUpdate: Sendable {
  /// The batch update from the previous content to ``content``.
  public var changes: ListChanges
  /// The list after the change.
  public var content: ListContent
}
