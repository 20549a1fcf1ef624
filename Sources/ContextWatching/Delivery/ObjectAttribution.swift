public import ObjectGraph

/// The watches that saw one object in a delivery.
public struct ObjectAttribution: Hashable, Sendable {
  /// The object.
  public var objectID: ObjectID
  /// The watches that saw it and what each saw, in watch order. A
  /// collection rather than an array: the matches of every object of a
  /// delivery share one allocation.
  public var matches: some RandomAccessCollection<WatchMatch> & Sendable { storage }
  /// The object's part of the delivery's shared storage.
  package var storage: ArraySlice<WatchMatch>

  /// Creates an attribution over part of a delivery's matches.
  package init(objectID: ObjectID, matches: ArraySlice<WatchMatch>) {
    self.objectID = objectID
    storage = matches
  }
}
