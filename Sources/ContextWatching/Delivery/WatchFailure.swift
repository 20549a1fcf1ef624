public import ObjectGraph
public import PredicateDSL

/// A watch's predicate that failed on an object.
public struct WatchFailure: Hashable, Sendable, CustomStringConvertible {
  /// The watch.
  public var watch: WatchID
  /// The object.
  public var objectID: ObjectID
  /// The evaluation error, with its position in the predicate.
  public var error: PredicateEvaluationError

  /// Creates a failure.
  public init(watch: WatchID, objectID: ObjectID, error: PredicateEvaluationError) {
    self.watch = watch
    self.objectID = objectID
    self.error = error
  }

  /// `watch 2 on #7: index 3 is out of range …`.
  public var description: String { "\(watch) on \(objectID): \(error.message)" }
}
