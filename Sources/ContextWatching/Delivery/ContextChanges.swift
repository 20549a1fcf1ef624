public import ObjectGraph
import PredicateDSL

/// What one save changed among the objects a watcher watches: the filtered
/// sets, delivered once per save on the watcher's queue.
///
/// Each object appears in the sets of the events its watches saw: an object
/// that entered one watch and stayed in another is in ``entered`` and in
/// ``updated``. ``attribution`` says which watch saw what.
///
/// ```swift
/// func contextWatcher(_ watcher: ContextWatcher, didObserve changes: ContextChanges) {
///   for update in changes.entered { print("now matching:", update.after) }
///   for update in changes.exited { print("no longer matching:", update.after) }
///   print(changes.matches(for: someID))   // [watch 1 entered]
/// }
/// ```
public struct ContextChanges: Sendable, Hashable {
  /// The save's sequence number; for pending changes, that of the last save
  /// before them.
  public var sequenceNumber: Int
  /// The save's author label.
  public var author: String?
  /// Inserted objects that matched a watch, in identifier order.
  public var inserted: [ObjectSnapshot]
  /// Updated objects that matched a watch before and after, in identifier
  /// order, with changed keys and old values.
  public var updated: [ObjectUpdate]
  /// Objects that match a watch now and did not before.
  ///
  /// For an object that changed only through a relationship (its
  /// department was renamed), `before` and `after` hold its own unchanged
  /// values and `changedKeys` names the relationship the change came
  /// through.
  public var entered: [ObjectUpdate]
  /// Objects that matched a watch before and do not now; see ``entered``.
  public var exited: [ObjectUpdate]
  /// Deleted objects that matched a watch on their last saved values.
  public var deleted: [ObjectSnapshot]
  /// For each object delivered, in identifier order, the watches that saw
  /// it and what they saw, in watch order.
  public var attribution: [ObjectAttribution]
  /// Watches whose predicate could not be evaluated on an object (as where
  /// Apple's evaluation raises: an index out of range, say). Such an object
  /// is not counted as matching that watch; the failure is reported here
  /// instead of being a silent no-match.
  public var failures: [WatchFailure]
  /// Set when the watcher's buffer was full and the deliveries of these
  /// saves were dropped: the consumer fell behind and should refetch. A
  /// delivery that reports an overflow holds no objects.
  public var missedSaves: ClosedRange<Int>?
  /// What the delivery reports: a save (most), a context's pending
  /// changes (for watches that follow them, see ``WatchOptions/follows``),
  /// or time passing for watches that compare with `now()`. Pending
  /// changes and a delivery caused by time carry the sequence number of
  /// the last save before them; time, no author.
  public var cause: ChangeCause
  /// For a delivery of a coalesced watch (see ``WatchOptions/delivery``),
  /// the sequence numbers of the first and last change values it merges
  /// (``sequenceNumber`` is the last); nil for a delivery of one change
  /// value. The cause of a coalesced delivery is that of the changes it
  /// merges when they agree, else ``ChangeCause/save``; its author likewise,
  /// else nil.
  public var coalesced: ClosedRange<Int>?

  /// Creates a delivery.
  public init(
    sequenceNumber: Int, author: String?, inserted: [ObjectSnapshot] = [], updated: [ObjectUpdate] = [],
    entered: [ObjectUpdate] = [], exited: [ObjectUpdate] = [], deleted: [ObjectSnapshot] = [],
    attribution: [ObjectAttribution] = [], failures: [WatchFailure] = [], missedSaves: ClosedRange<Int>? = nil,
    cause: ChangeCause = .save
  ) {
    self.cause = cause
    self.sequenceNumber = sequenceNumber
    self.author = author
    self.inserted = inserted
    self.updated = updated
    self.entered = entered
    self.exited = exited
    self.deleted = deleted
    self.attribution = attribution
    self.failures = failures
    self.missedSaves = missedSaves
  }

  /// Whether the delivery reports no object and no failure (deliveries never
  /// are, except the overflow signal).
  public var isEmpty: Bool {
    inserted.isEmpty && updated.isEmpty && entered.isEmpty && exited.isEmpty && deleted.isEmpty
      && failures.isEmpty
  }

  /// Whether this delivery signals dropped deliveries (see ``missedSaves``).
  public var isOverflow: Bool { missedSaves != nil }

  /// The watches that saw an object and what each saw, in watch order;
  /// empty for an object not delivered.
  ///
  /// - Complexity: O(log *n*) in the objects delivered.
  public func matches(for objectID: ObjectID) -> [WatchMatch] {
    var (low, high) = (0, attribution.count)
    while low < high {
      let middle = (low + high) / 2
      if attribution[middle].objectID < objectID { low = middle + 1 } else { high = middle }
    }
    guard low < attribution.count, attribution[low].objectID == objectID else { return [] }
    return Array(attribution[low].storage)
  }

  /// The attribution as a dictionary from object to matches (built on each
  /// call: prefer ``attribution`` or ``matches(for:)`` in hot code).
  public var matches: [ObjectID: [WatchMatch]] {
    Dictionary(uniqueKeysWithValues: attribution.map { ($0.objectID, Array($0.storage)) })
  }

  /// The identifiers of the objects `watch` saw with `event`, in identifier
  /// order.
  public func objectIDs(for watch: WatchID, _ event: WatchEvent) -> [ObjectID] {
    let match = WatchMatch(watch: watch, event: event)
    return attribution.compactMap { $0.matches.contains(match) ? $0.objectID : nil }
  }

  /// The delivery as Core Data's did-save `userInfo` was, filtered, keyed
  /// `"inserted"`, `"updated"` and `"deleted"`: entered and exited objects
  /// are updates there (their values as saved).
  public var coreDataStyle: [String: [ObjectSnapshot]] {
    let changed = (updated + entered + exited).map(\.after)
    var seen: Set<ObjectID> = []
    let updates = changed.filter { seen.insert($0.objectID).inserted }.sorted { $0.objectID < $1.objectID }
    return [
      ObjectContext.SaveUserInfoKey.inserted: inserted, ObjectContext.SaveUserInfoKey.updated: updates,
      ObjectContext.SaveUserInfoKey.deleted: deleted,
    ]
  }
}
