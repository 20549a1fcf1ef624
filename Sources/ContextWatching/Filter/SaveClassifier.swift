import ObjectGraph
import PredicateDSL

extension MasterFilter {
  /// Runs every watch over one save and classifies what each watch saw:
  /// inserted objects on their new values, deleted ones on their last
  /// values, updated ones before and after (both: updated; after only:
  /// entered; before only: exited), and objects reached through a changed
  /// related object, before and after (entered or exited).
  ///
  /// - Returns: The delivery, or nil when no watch saw anything.
  mutating func classify(_ save: ContextSave, context: ObjectContext?) -> ContextChanges? {
    guard count > 0 else { return nil }
    let before = SaveGraph(side: .before, save: save, context: context)
    let after = SaveGraph(side: .after, save: save, context: context)
    var collector = Collector()

    for snapshot in save.inserted {
      for slot in matches(WatchImage(snapshot: snapshot, graph: after), failures: &collector.failures) {
        collector.record(entries[slot]!, .inserted, objectID: snapshot.objectID) { .inserted(snapshot) }
      }
    }
    for update in save.updated {
      let was = Set(matches(WatchImage(snapshot: update.before, graph: before), failures: &collector.failures))
      let now = Set(matches(WatchImage(snapshot: update.after, graph: after), failures: &collector.failures))
      for slot in was.union(now) {
        let entry = entries[slot]!
        let event: WatchEvent = was.contains(slot) ? (now.contains(slot) ? .updated : .exited) : .entered
        if event == .updated && !entry.counts(update.changedKeys) { continue }
        collector.record(entry, event, objectID: update.objectID) { .update(update) }
      }
    }
    for snapshot in save.deleted {
      for slot in matches(WatchImage(snapshot: snapshot, graph: before), failures: &collector.failures) {
        collector.record(entries[slot]!, .deleted, objectID: snapshot.objectID) { .deleted(snapshot) }
      }
    }
    classifyThroughRelationships(save, before: before, after: after, into: &collector)
    return collector.changes(for: save)
  }

  /// Objects whose own values did not change, but whose related objects
  /// did in a way a watch's predicate reads: they may enter or exit.
  private mutating func classifyThroughRelationships(
    _ save: ContextSave, before: SaveGraph, after: SaveGraph, into collector: inout Collector
  ) {
    var reached: [ObjectID: [Int: String]] = [:]  // root → watch slot → first relationship
    var changedIDs: Set<ObjectID>?
    for update in save.updated {
      let dependents = dependents(of: update.after.layout)
      guard !dependents.isEmpty else { continue }
      if changedIDs == nil {
        changedIDs = Set(save.inserted.map(\.objectID) + save.updated.map(\.objectID) + save.deleted.map(\.objectID))
      }
      for (slot, numbers) in dependents {
        guard let entry = entries[slot] else { continue }
        for number in numbers {
          let dependency = entry.dependencies[number]
          guard dependency.isAffected(by: update.changedKeys, in: update.after.layout) else { continue }
          var roots = Self.walkBack(from: update.before, through: dependency.inverseSlots, in: before)
          roots.formUnion(Self.walkBack(from: update.after, through: dependency.inverseSlots, in: after))
          for root in roots where !changedIDs!.contains(root) {
            reached[root, default: [:]][slot] = dependency.path[0]
          }
        }
      }
    }
    for (root, slots) in reached {
      guard let snapshot = after.snapshot(of: root) else { continue }
      for (slot, relationship) in slots.sorted(by: { $0.key < $1.key }) {
        let entry = entries[slot]!
        guard snapshot.layout.isKind(of: entry.entity) else { continue }
        let was = matches(slot, WatchImage(snapshot: snapshot, graph: before), failures: &collector.failures)
        let now = matches(slot, WatchImage(snapshot: snapshot, graph: after), failures: &collector.failures)
        guard was != now else { continue }
        let update = ObjectUpdate(before: snapshot, after: snapshot, changedKeys: [relationship])
        collector.record(entry, now ? .entered : .exited, objectID: root) { .update(update) }
      }
    }
  }

  /// The objects that reach `start` through the relationships whose inverse
  /// slots are given, far end first.
  private static func walkBack(from start: ObjectSnapshot, through inverseSlots: [Int], in graph: SaveGraph) -> Set<ObjectID> {
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

/// Gathers what each watch saw into one delivery.
struct Collector {
  enum Image {
    case inserted(ObjectSnapshot)
    case update(ObjectUpdate)
    case deleted(ObjectSnapshot)
  }

  private var objects: [ObjectID: (image: Image, events: Set<WatchEvent>, matches: [WatchMatch])] = [:]
  var failures: [WatchFailure] = []

  mutating func record(_ entry: WatchEntry, _ event: WatchEvent, objectID: ObjectID, image: () -> Image) {
    guard entry.options.events.contains(WatchEvents(event)),
      entry.options.objectIDs?.contains(objectID) ?? true
    else { return }
    let match = WatchMatch(watch: entry.id, event: event)
    if objects[objectID] == nil {
      objects[objectID] = (image(), [event], [match])
    } else {
      objects[objectID]!.events.insert(event)
      objects[objectID]!.matches.append(match)
    }
  }

  func changes(for save: ContextSave) -> ContextChanges? {
    guard !objects.isEmpty || !failures.isEmpty else { return nil }
    var changes = ContextChanges(sequenceNumber: save.sequenceNumber, author: save.author)
    for (id, object) in objects.sorted(by: { $0.key < $1.key }) {
      switch object.image {
      case .inserted(let snapshot): changes.inserted.append(snapshot)
      case .deleted(let snapshot): changes.deleted.append(snapshot)
      case .update(let update):
        if object.events.contains(.updated) { changes.updated.append(update) }
        if object.events.contains(.entered) { changes.entered.append(update) }
        if object.events.contains(.exited) { changes.exited.append(update) }
      }
      changes.matches[id] = object.matches.sorted { $0.watch < $1.watch }
    }
    changes.failures = failures.sorted { ($0.objectID, $0.watch) < ($1.objectID, $1.watch) }
    return changes
  }
}
