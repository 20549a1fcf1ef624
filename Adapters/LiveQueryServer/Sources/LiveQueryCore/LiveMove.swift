public import ContextWatching

/// An object that moved: from an index path of the old list to one of the
/// new, with its values and changed keys.
public struct LiveMove: Equatable, Sendable {
  /// Where it was, in the old list.
  public var from: ListIndexPath
  /// Where it is, in the new list.
  public var to: ListIndexPath
  /// The object.
  public var object: LiveObject

  /// Creates a move.
  public init(from: ListIndexPath, to: ListIndexPath, object: LiveObject) {
    self.from = from
    self.to = to
    self.object = object
  }
}
