public import ObjectGraph

/// What one save changed among the objects one watch sees: what a watch's
/// own handler receives (see ``WatchHandler``), once per save that the
/// watch saw something in.
///
/// The sets hold this watch's objects only, each in the set of the event
/// the watch saw, in identifier order.
///
/// ```swift
/// let token = try watcher.watch(
///   "Person", where: "age >= 60",
///   handler: .changes { changes in
///     for update in changes.entered { print("now a senior:", update.after) }
///   })
/// ```
public struct WatchChanges: Sendable, Hashable {
  /// The watch.
  public var watch: WatchID
  /// The save's sequence number; for pending changes, that of the last save
  /// before them.
  public var sequenceNumber: Int
  /// The save's author label.
  public var author: String?
  /// Objects inserted that match the watch.
  public var inserted: [ObjectSnapshot]
  /// Objects that matched before the save and after it, with changed keys
  /// and old values.
  public var updated: [ObjectUpdate]
  /// Objects that match now and did not before (see
  /// ``ContextChanges/entered`` for those changed through a relationship).
  public var entered: [ObjectUpdate]
  /// Objects that matched before and do not now.
  public var exited: [ObjectUpdate]
  /// Objects deleted that matched on their last saved values.
  public var deleted: [ObjectSnapshot]
  /// Objects on which the watch's predicate could not be evaluated (see
  /// ``ContextChanges/failures``).
  public var failures: [WatchFailure]
  /// What the changes report: a save, pending changes or time passing
  /// (see ``ContextChanges/cause``).
  public var cause: ChangeCause
  /// For a delivery of a coalesced watch (see ``WatchOptions/delivery``),
  /// the sequence numbers of the first and last change values it merges
  /// (``sequenceNumber`` is the last); nil for a delivery of one change
  /// value. The cause of a coalesced delivery is that of the changes it
  /// merges when they agree, else ``ChangeCause/save``; its author likewise,
  /// else nil.
  public var coalesced: ClosedRange<Int>?

  /// Creates a watch's changes.
  public init(
    watch: WatchID, sequenceNumber: Int, author: String?, inserted: [ObjectSnapshot] = [],
    updated: [ObjectUpdate] = [], entered: [ObjectUpdate] = [], exited: [ObjectUpdate] = [],
    deleted: [ObjectSnapshot] = [], failures: [WatchFailure] = [], cause: ChangeCause = .save
  ) {
    self.cause = cause
    self.watch = watch
    self.sequenceNumber = sequenceNumber
    self.author = author
    self.inserted = inserted
    self.updated = updated
    self.entered = entered
    self.exited = exited
    self.deleted = deleted
    self.failures = failures
  }

  /// Whether the changes hold no object and no failure (a handler is never
  /// called with such changes).
  public var isEmpty: Bool {
    inserted.isEmpty && updated.isEmpty && entered.isEmpty && exited.isEmpty && deleted.isEmpty && failures.isEmpty
  }

  /// Every object of the changes with the event the watch saw and the keys
  /// that changed (none for inserted and deleted objects), in identifier
  /// order: the calls a ``WatchHandler/eachObject(on:_:)`` handler gets.
  /// An object is shown as it is after the save (deleted ones on their last
  /// saved values).
  ///
  /// - Complexity: O(*n* log *n*) in the objects.
  public var objectEvents: [(object: ObjectSnapshot, event: WatchEvent, changedKeys: [String])] {
    var events: [(object: ObjectSnapshot, event: WatchEvent, changedKeys: [String])] = []
    events.reserveCapacity(inserted.count + updated.count + entered.count + exited.count + deleted.count)
    for snapshot in inserted { events.append((snapshot, .inserted, [])) }
    for update in updated { events.append((update.after, .updated, update.changedKeys)) }
    for update in entered { events.append((update.after, .entered, update.changedKeys)) }
    for update in exited { events.append((update.after, .exited, update.changedKeys)) }
    for snapshot in deleted { events.append((snapshot, .deleted, [])) }
    // Each list is in identifier order, and an object is in one of them.
    if events.count > 1 { events.sort { $0.object.objectID < $1.object.objectID } }
    return events
  }
}
