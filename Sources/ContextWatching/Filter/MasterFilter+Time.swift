import ObjectGraph
import PredicateDSL

/// A watch whose predicate compares with `now()`: its thresholds and the
/// next crossing of each of its objects that has one.
struct TimedWatch {
  let predicate: TimedPredicate
  var queue = CrossingQueue()
}

extension MasterFilter {
  /// Whether some watch compares with `now()`.
  var hasTimedWatches: Bool { !timed.isEmpty }

  /// The earliest crossing of any timed watch.
  ///
  /// - Complexity: O(timed watches).
  var earliestCrossing: Double? {
    var earliest: Double?
    for watch in timed.values {
      guard let time = watch.queue.first?.time else { continue }
      if earliest.map({ time < $0 }) ?? true { earliest = time }
    }
    return earliest
  }

  /// Whether the watch `id` (or a member of its group) compares with `now()`.
  func isTimed(_ id: WatchID) -> Bool {
    guard let entry = entry(id) else { return false }
    return timed[id.slot] != nil || entry.members.contains { timed[$0] != nil }
  }

  /// The entities of a timed watch (or of its group's members), each with
  /// whether its watch follows pending changes (and so starts on the
  /// objects as they are, not as last saved).
  func timedEntities(_ id: WatchID) -> [(name: String, followsPending: Bool)] {
    // Most watchers have no timed watch: nothing to look up or allocate.
    guard !timed.isEmpty, let entry = entry(id) else { return [] }
    return ([id.slot] + entry.members).compactMap { slot in
      guard timed[slot] != nil, let name = entries[slot]?.entity.name else { return nil }
      return (name, slotInfo[slot].follows(.pending))
    }
  }

  /// Keeps the crossing times of the objects a change value inserted,
  /// updated or deleted, as of `now`, for the timed watches that follow
  /// its kind: a watch that follows saves alone judges its crossings on
  /// saved values, never on pending ones.
  ///
  /// - Complexity: O(log n) per object of a timed watch's entity in the
  ///   save, n the objects with crossings ahead.
  mutating func track(_ save: ContextSave, at now: Double) {
    lastSequenceNumber = save.sequenceNumber
    for slot in Array(timed.keys) where slotInfo[slot].follows(save.kind) {
      guard let entity = entries[slot]?.entity else { continue }
      for snapshot in save.inserted where snapshot.layout.isKind(of: entity) { schedule(snapshot, slot, after: now) }
      for update in save.updated where update.after.layout.isKind(of: entity) {
        schedule(update.after, slot, after: now)
      }
      for snapshot in save.deleted where snapshot.layout.isKind(of: entity) {
        timed[slot]!.queue.remove(snapshot.objectID)
      }
    }
  }

  /// Starts the timed watch `id` (and its group's members) on objects that
  /// exist already, as of `now`: a watch that follows pending changes on
  /// `live`, the objects as they are; one that follows saves alone on
  /// `saved`, the objects as last saved.
  mutating func seed(_ id: WatchID, live: [ObjectSnapshot], saved: [ObjectSnapshot], at now: Double) {
    guard let entry = entry(id) else { return }
    for slot in [id.slot] + entry.members where timed[slot] != nil {
      let entity = entries[slot]!.entity
      let snapshots = slotInfo[slot].follows(.pending) ? live : saved
      for snapshot in snapshots where snapshot.layout.isKind(of: entity) { schedule(snapshot, slot, after: now) }
    }
  }

  private mutating func schedule(_ snapshot: ObjectSnapshot, _ slot: Int, after now: Double) {
    let time = timed[slot]!.predicate.nextCrossing(of: snapshot, after: now)
    timed[slot]!.queue.set(snapshot, crossingAt: time)
  }

  /// Re-evaluates the objects whose crossings are due at `now`, and
  /// delivers those that entered or exited their watches as a delivery
  /// of its own (``ChangeCause/timePassed``).
  ///
  /// Each object is judged just before its crossing and at `now`, both
  /// on its last saved values: it entered when it matches only at `now`,
  /// exited when it matched only before.
  ///
  /// - Complexity: O(log n) per crossing, n the objects with crossings
  ///   ahead.
  mutating func classifyCrossings(
    at now: Double, context: ObjectContext?, delivers: Bool, routes: inout [RoutedChanges]
  ) -> ContextChanges? {
    guard hasTimedWatches else { return nil }
    let save = ContextSave(
      sequenceNumber: lastSequenceNumber, author: nil, contextName: "", inserted: [], updated: [], deleted: [])
    let graph = SaveGraph(side: .after, save: save, context: context)
    var events: [(objectID: ObjectID, slot: Int, entered: Bool, snapshot: ObjectSnapshot)] = []
    var failures: [WatchFailure] = []
    for slot in timed.keys.sorted() {
      while let due = timed[slot]!.queue.popDue(at: now) {
        let image = WatchImage(snapshot: due.snapshot, graph: graph)
        var ignored: [WatchFailure] = []
        let was = EvaluationTime.$now.withValue(due.time.nextDown) { matches(slot, image, failures: &ignored) }
        let isMatching = EvaluationTime.$now.withValue(now) { matches(slot, image, failures: &failures) }
        if was != isMatching {
          events.append((due.snapshot.objectID, slot, isMatching, due.snapshot))
        }
        schedule(due.snapshot, slot, after: now)
      }
    }
    guard !events.isEmpty || !failures.isEmpty else { return nil }
    events.sort { ($0.objectID, $0.slot) < ($1.objectID, $1.slot) }
    var collector = Collector(collected)
    collector.failures = failures
    var image: Collector.Image?
    var imageObject: ObjectID?
    for event in events {
      if imageObject != event.objectID {
        image = collector.indirect(ObjectUpdate(before: event.snapshot, after: event.snapshot, changedKeys: []))
        imageObject = event.objectID
      }
      collector.record(
        event.slot, slotInfo[event.slot], event.entered ? .entered : .exited, objectID: event.objectID,
        image: image!, in: self)
    }
    guard collector.hasRecords else { return nil }
    let changes = deliveries(of: &collector, for: save, delivers: delivers, routes: &routes)
    for index in routes.indices { routes[index].changes.cause = .timePassed }
    guard var changes else { return nil }
    changes.cause = .timePassed
    return changes
  }
}
