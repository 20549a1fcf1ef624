import ObjectGraph
import PredicateDSL

extension MasterFilter {
  /// Runs every watch over one save and classifies what each watch saw:
  /// inserted objects on their new values, deleted ones on their last
  /// values, updated ones before and after (both: updated; after only:
  /// entered; before only: exited), and objects reached through a changed
  /// related object, before and after (entered or exited).
  ///
  /// Watches with handlers of their own also get their own changes, in
  /// `routes`, when there are any.
  ///
  /// - Parameters:
  ///   - delivers: Whether to build the delivery of every watch's changes
  ///     (false when the watcher's target is its watches' handlers alone).
  ///   - routes: Set to the changes of each watch with a handler that saw
  ///     something, with its route; left empty otherwise.
  /// - Returns: The delivery, or nil when no watch saw anything (or
  ///   `delivers` is false).
  mutating func classify(
    _ save: ContextSave, context: ObjectContext?, delivers: Bool = true, routes: inout [RoutedChanges]
  ) -> ContextChanges? {
    guard count > 0 else { return nil }
    prepareRanges()
    let sides = SaveSides(save: save, context: context)
    let (before, after) = (SaveGraph(side: .before, sides: sides), SaveGraph(side: .after, sides: sides))
    var collector = Collector(collected)
    let (was, now) = (scratch.was, scratch.now)

    for (position, snapshot) in save.inserted.enumerated() {
      matches(WatchImage(snapshot: snapshot, graph: after), into: now, failures: &collector.failures)
      for slot in now.slots {
        collector.record(
          slot, slotInfo[slot], .inserted, objectID: snapshot.objectID, image: .inserted(position), in: self)
      }
    }
    // An update is one reference: copying it out of the save is a retain.
    for (position, update) in save.updated.enumerated() {
      // When no watch of the entity reads a changed key, the image before
      // matches what the image after does: one matching serves both sides,
      // and every watch that matches saw an update.
      if readsUnchanged(update, entity: update.entityIndex) {
        matches(WatchImage(snapshot: update.after, graph: after), into: now, failures: &collector.failures)
        guard !now.isEmpty else { continue }
        let (objectID, changed) = (update.objectID, update.hasChangedKeys)
        for slot in now.slots {
          let info = slotInfo[slot]
          guard info.countsEveryUpdate ? changed : entries[slot].unsafelyUnwrapped.counts(update) else { continue }
          collector.record(slot, info, .updated, objectID: objectID, image: .updated(position), in: self)
        }
        continue
      }
      matches(WatchImage(snapshot: update.before, graph: before), into: was, failures: &collector.failures)
      matches(WatchImage(snapshot: update.after, graph: after), into: now, failures: &collector.failures)
      guard !was.isEmpty || !now.isEmpty else { continue }
      for slot in was.slots { mark(slot, 1) }
      for slot in now.slots { mark(slot, 2) }
      classify(was.slots, update, position, into: &collector)
      classify(now.slots, update, position, into: &collector)
    }
    for (position, snapshot) in save.deleted.enumerated() {
      matches(WatchImage(snapshot: snapshot, graph: before), into: was, failures: &collector.failures)
      for slot in was.slots {
        collector.record(
          slot, slotInfo[slot], .deleted, objectID: snapshot.objectID, image: .deleted(position), in: self)
      }
    }
    classifyThroughRelationships(save, before: before, after: after, into: &collector)
    if save.kind == .pending || followsOnlyPending > 0 { sift(&collector, for: save.kind) }
    // Most saves of a watcher with monitors change no monitored object.
    guard collector.hasRecords else { return nil }
    return deliveries(of: &collector, for: save, delivers: delivers, routes: &routes)
  }

  /// What a classified change value delivers: the changes of each watch
  /// with a route, in `routes`, and the delivery of every watch's changes
  /// (unless `delivers` is false), which leaves out the coalesced watches'
  /// (their coalescers deliver them).
  func deliveries(
    of collector: inout Collector, for save: ContextSave, delivers: Bool, routes: inout [RoutedChanges]
  ) -> ContextChanges? {
    collector.sort()
    if routedCount > 0 { routes = collector.routes(for: save, in: self) }
    guard delivers else { return nil }
    if coalescedCount > 0 { siftCoalesced(&collector) }
    return collector.changes(for: save)
  }

  /// Drops the matches and failures of the coalesced watches.
  @inline(never)
  private func siftCoalesced(_ collector: inout Collector) {
    collector.removeMatches { slotInfo[$0.watch.slot].isCoalesced }
    collector.failures.removeAll { slotInfo[$0.watch.slot].isCoalesced }
  }

  /// Drops the matches and failures of the watches that do not follow
  /// `kind`: every watch is matched against every change value, and what
  /// it follows is checked once, here, rather than for each match (so
  /// that a save, which most watches follow, pays nothing for it).
  @inline(never)
  private func sift(_ collector: inout Collector, for kind: ContextSave.Kind) {
    collector.removeMatches { !slotInfo[$0.watch.slot].follows(kind) }
    guard !collector.failures.isEmpty else { return }
    let kinds = ChangeKinds(kind)
    collector.failures.removeAll { failure in
      !(entry(failure.watch)?.options.follows.contains(kinds) ?? false)
    }
  }

  /// Records the marked slots of an update as updated, entered or exited,
  /// clearing their marks (a slot in both lists is recorded once).
  private mutating func classify(
    _ slots: UnsafeBufferPointer<Int>, _ update: borrowing ObjectUpdate, _ position: Int,
    into collector: inout Collector
  ) {
    for slot in slots {
      let marks = takeMarks(slot)
      guard marks != 0 else { continue }  // seen already
      let event: WatchEvent = marks == 3 ? .updated : (marks == 2 ? .entered : .exited)
      let info = slotInfo[slot]
      if event == .updated
        && !(info.countsEveryUpdate ? update.hasChangedKeys : entries[slot].unsafelyUnwrapped.counts(update))
      {
        continue
      }
      collector.record(slot, info, event, objectID: update.objectID, image: .updated(position), in: self)
    }
  }

  /// Objects whose own values did not change, but whose related objects
  /// did in a way a watch's predicate reads: they may enter or exit.
  private mutating func classifyThroughRelationships(
    _ save: ContextSave, before: SaveGraph, after: SaveGraph, into collector: inout Collector
  ) {
    // Most watchers read through no relationship: then nothing is copied
    // out of the updates to find that out.
    guard hasDependents else { return }
    var reached: [ObjectID: [Int: String]] = [:]  // root → watch slot → first relationship
    var changedIDs: Set<ObjectID>?
    for update in save.updated {
      guard hasDependents(entity: update.entityIndex) else { continue }
      let dependents = dependents(of: update.after.layout)
      if changedIDs == nil {
        changedIDs = Set(save.inserted.map(\.objectID) + save.updated.map(\.objectID) + save.deleted.map(\.objectID))
      }
      for (slot, numbers) in dependents {
        guard let entry = entries[slot] else { continue }
        for number in numbers {
          let dependency = entry.dependencies[number]
          guard dependency.isAffected(by: update) else { continue }
          var roots = Self.walkBack(from: update.before, through: dependency.inverseSlots, in: before)
          roots.formUnion(Self.walkBack(from: update.after, through: dependency.inverseSlots, in: after))
          for root in roots where !changedIDs!.contains(root) {
            reached[root, default: [:]][slot] = dependency.path[0]
          }
        }
      }
    }
    for (root, slots) in reached.sorted(by: { $0.key < $1.key }) {
      guard let snapshot = after.snapshot(of: root) else { continue }
      for (slot, relationship) in slots.sorted(by: { $0.key < $1.key }) {
        let entry = entries[slot]!
        guard snapshot.layout.isKind(of: entry.entity) else { continue }
        let was = matches(slot, WatchImage(snapshot: snapshot, graph: before), failures: &collector.failures)
        let now = matches(slot, WatchImage(snapshot: snapshot, graph: after), failures: &collector.failures)
        guard was != now else { continue }
        let update = ObjectUpdate(before: snapshot, after: snapshot, changedKeys: [relationship])
        let image = collector.indirect(update)
        collector.record(slot, slotInfo[slot], now ? .entered : .exited, objectID: root, image: image, in: self)
      }
    }
  }

  /// The objects that reach `start` through the relationships whose inverse
  /// slots are given, far end first.
  private static func walkBack(
    from start: ObjectSnapshot, through inverseSlots: [Int], in graph: SaveGraph
  ) -> Set<ObjectID> {
    var frontier = [start]
    var reached: Set<ObjectID> = []
    for (step, slot) in inverseSlots.enumerated() {
      reached = []
      for object in frontier where slot < object.relationships.count {
        reached.formUnion(object.relationships[slot].objectIDs)
      }
      if step < inverseSlots.count - 1 { frontier = reached.compactMap(graph.snapshot(of:)) }
    }
    return reached
  }
}

/// The changes of one watch with a handler of its own, and where they go.
typealias RoutedChanges = (route: WatchRoute, changes: WatchChanges)
