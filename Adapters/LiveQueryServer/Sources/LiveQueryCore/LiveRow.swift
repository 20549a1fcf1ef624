public import ContextWatching

/// An object at an index path of a list: deleted (old list), inserted or
/// updated (new list).
public struct LiveRow: Equatable, Sendable {
  /// Where the object is.
  public var path: ListIndexPath
  /// The object.
  public var object: LiveObject

  /// Creates a row.
  public init(path: ListIndexPath, object: LiveObject) {
    self.path = path
    self.object = object
  }
}
