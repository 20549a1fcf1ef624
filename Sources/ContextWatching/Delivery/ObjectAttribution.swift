public import ObjectGraph

/// The watches that saw one object in a delivery.
public struct ObjectAttribution: Hashable, Sendable {
  /// The object.
  public var objectID: ObjectID
  /// The watches that saw it and what each saw, in watch order. (A slice of
  /// the delivery's shared storage: one allocation per delivery, not per
  /// object.)
  public var matches: ArraySlice<WatchMatch>

  /// Creates an attribution.
  public init(objectID: ObjectID, matches: ArraySlice<WatchMatch>) {
    self.objectID = objectID
    self.matches = matches
  }
}
