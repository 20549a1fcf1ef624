/// An `event`: what one save did to a watch's objects. Inserted, updated,
/// entered and deleted objects carry their readable values (a deleted one
/// its last saved values); exited objects carry their refs alone, since
/// their new values may no longer be readable.
public struct EventMessage: Equatable, Sendable {
  /// The watch's id.
  public var id: String
  /// The save's sequence number.
  public var sequenceNumber: Int
  /// Objects inserted.
  public var inserted: [LiveObject]
  /// Objects that matched before and after and changed readable keys.
  public var updated: [LiveObject]
  /// Objects that started to match.
  public var entered: [LiveObject]
  /// Objects that stopped matching (or became unreadable).
  public var exited: [LiveObject]
  /// Objects deleted.
  public var deleted: [LiveObject]

  /// Creates an event; every list defaults to empty.
  public init(
    id: String, sequenceNumber: Int, inserted: [LiveObject] = [], updated: [LiveObject] = [],
    entered: [LiveObject] = [], exited: [LiveObject] = [], deleted: [LiveObject] = []
  ) {
    self.id = id
    self.sequenceNumber = sequenceNumber
    self.inserted = inserted
    self.updated = updated
    self.entered = entered
    self.exited = exited
    self.deleted = deleted
  }

  /// Whether no list holds an object.
  public var isEmpty: Bool {
    inserted.isEmpty && updated.isEmpty && entered.isEmpty && exited.isEmpty && deleted.isEmpty
  }
}
