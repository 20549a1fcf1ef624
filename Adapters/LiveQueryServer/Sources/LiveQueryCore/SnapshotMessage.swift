/// A `snapshot`: a subscription's whole list, sent when it starts and in
/// place of the changes a slow client missed.
public struct SnapshotMessage: Equatable, Sendable {
  /// The subscription's id.
  public var id: String
  /// The last save that changed the list (what the list is as of).
  public var sequenceNumber: Int
  /// The sections in order, with their counts (one section, with a nil
  /// name, for a list without sections).
  public var sections: [LiveSection]
  /// The objects in list order, each with its values; the sections' counts
  /// split them.
  public var objects: [LiveObject]

  /// Creates a snapshot.
  public init(id: String, sequenceNumber: Int, sections: [LiveSection], objects: [LiveObject]) {
    self.id = id
    self.sequenceNumber = sequenceNumber
    self.sections = sections
    self.objects = objects
  }
}
