/// A `changes`: one save's (or one `update`'s) changes of a list, in the
/// list monitor's batch-update form. Deleted sections, deleted objects and
/// move sources are index paths of the old list; inserted sections,
/// inserted objects, move destinations and updates are of the new one.
/// Applying removals from the end, then insertions from the start, to the
/// old list gives the new.
public struct ChangesMessage: Equatable, Sendable {
  /// The subscription's id.
  public var id: String
  /// The save the list is as of after these changes.
  public var sequenceNumber: Int
  /// Indexes of the sections removed, in the old list.
  public var deletedSections: [Int]
  /// The sections added, at their indexes in the new list.
  public var insertedSections: [LiveSection]
  /// Objects removed (refs only).
  public var deleted: [LiveRow]
  /// Objects added, with their values.
  public var inserted: [LiveRow]
  /// Objects moved, with their values and changed keys.
  public var moved: [LiveMove]
  /// Objects that stayed in place and changed, with their values and
  /// changed keys.
  public var updated: [LiveRow]

  /// Creates changes; every list defaults to empty.
  public init(
    id: String, sequenceNumber: Int, deletedSections: [Int] = [], insertedSections: [LiveSection] = [],
    deleted: [LiveRow] = [], inserted: [LiveRow] = [], moved: [LiveMove] = [], updated: [LiveRow] = []
  ) {
    self.id = id
    self.sequenceNumber = sequenceNumber
    self.deletedSections = deletedSections
    self.insertedSections = insertedSections
    self.deleted = deleted
    self.inserted = inserted
    self.moved = moved
    self.updated = updated
  }
}
