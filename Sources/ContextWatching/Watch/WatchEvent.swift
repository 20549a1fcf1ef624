/// What happened to an object, as one watch sees it.
public enum WatchEvent: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// Inserted, and matching the watch's predicate.
  case inserted
  /// Updated, matching the predicate before and after the save.
  case updated
  /// Updated (or changed through a relationship) so that it matches now and
  /// did not before.
  case entered
  /// Updated (or changed through a relationship) so that it matched before
  /// and does not now.
  case exited
  /// Deleted, and matching the predicate on its last saved values.
  case deleted

  /// The event's name: `"entered"`.
  public var description: String { rawValue }
}
