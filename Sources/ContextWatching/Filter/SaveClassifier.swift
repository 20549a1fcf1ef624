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
    // Most saves of a watcher with monitors change no monitored object.
    guard collector.hasRecords else { return delivers ? collector.changes(for: save) : nil }
    collector.sort()
    if routedCount > 0 { routes = collector.routes(for: save, in: self) }
    return delivers ? collector.changes(for: save) : nil
  }

  /// Records the marked slots of an update as updated, entered or exited,
  /// clearing their marks (a slot in both lists is recorded once).
  private mutating func classify(
    _ slots: UnsafeBufferPointer<Int>, _ update: borrowing ObjectUpdate, _ position: Int, into collector: inout Collector
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

/// The changes of one watch with a handler of its own, and where they go.
typealias RoutedChanges = (route: WatchRoute, changes: WatchChanges)

/// Gathers what each watch saw into one delivery. The classifier finishes
/// one object before it starts the next, so an object's matches are
/// consecutive: they go to one flat list, and a record per object points
/// into it and into the save's own arrays, without copying snapshots. Both
/// lists are the filter's scratch storage, reused save after save: filling
/// them allocates nothing and checks no uniqueness.
struct Collector {
  enum Image {
    case inserted(Int)
    case updated(Int)
    case deleted(Int)
    /// An object reached through a relationship: not in the save, but at
    /// this position of the collector's own list (so that records hold no
    /// references and copy as plain bytes).
    case indirect(Int)
  }

  struct Record {
    var objectID: ObjectID
    var image: Image
    var events: UInt8
    var start: Int
    var count: Int

    /// Where the object's matches are in the flat list.
    var range: Range<Int> { start..<(start + count) }
  }

  /// The lists a collector fills, kept by the filter between saves.
  final class Storage {
    let records = ScratchBuffer<Record>()
    let matches = ScratchBuffer<WatchMatch>()
  }

  /// Scratch storage grown past this many elements is given back when the
  /// next save starts.
  private static let retainedCapacity = 1 << 14

  private let records: ScratchBuffer<Record>
  private let flat: ScratchBuffer<WatchMatch>
  /// The updates of objects reached through relationships.
  private var reached: [ObjectUpdate] = []
  var failures: [WatchFailure] = []

  /// A collector filling `storage`'s lists, emptied first.
  init(_ storage: Storage) {
    records = storage.records
    flat = storage.matches
    records.removeAll(keepingCapacityUpTo: Self.retainedCapacity)
    flat.removeAll(keepingCapacityUpTo: Self.retainedCapacity)
  }

  /// Keeps the update of an object reached through a relationship, for a
  /// record's image.
  mutating func indirect(_ update: ObjectUpdate) -> Image {
    reached.append(update)
    return .indirect(reached.count - 1)
  }

  /// Records that the watch in `slot` (whose hot fields are `info`) saw the
  /// object, unless its options filter the event or the object out.
  @inline(__always)
  func record(
    _ slot: Int, _ info: SlotInfo, _ event: WatchEvent, objectID: ObjectID, image: @autoclosure () -> Image,
    in filter: MasterFilter
  ) {
    if info.filtersEvents {
      let options = filter.entries[slot].unsafelyUnwrapped.options
      guard options.events.contains(WatchEvents(event)), options.objectIDs?.contains(objectID) ?? true else { return }
    }
    flat.append(WatchMatch(watch: info.id, event: event))
    let bit = WatchEvents(event).rawValue
    if !records.isEmpty && records.last.objectID == objectID {
      records.last.events |= bit
      records.last.count += 1
    } else {
      records.append(Record(objectID: objectID, image: image(), events: bit, start: flat.count - 1, count: 1))
    }
  }

  /// Whether something was recorded: a match, or a failure.
  var hasRecords: Bool { !records.isEmpty || !failures.isEmpty }

  /// Puts the records in object order, and each object's matches in watch
  /// order: once per save, before `changes(for:)` and `routes(for:in:)`.
  func sort() {
    var records = records.mutableElements
    if !records.isSorted(by: { $0.objectID < $1.objectID }) { records.sort { $0.objectID < $1.objectID } }
    let sorted = flat.mutableElements
    for record in records where record.count > 1 { Self.sortByWatch(sorted, record.range) }
  }

  /// The delivery of what was recorded, or nil when nothing was. Call
  /// `sort()` first.
  func changes(for save: ContextSave) -> ContextChanges? {
    guard !records.isEmpty || !failures.isEmpty else { return nil }
    var counts = (inserted: 0, updated: 0, entered: 0, exited: 0, deleted: 0)
    let records = records.elements
    for record in records {
      switch record.image {
      case .inserted: counts.inserted += 1
      case .updated, .indirect:
        if record.events & WatchEvents.updated.rawValue != 0 { counts.updated += 1 }
        if record.events & WatchEvents.entered.rawValue != 0 { counts.entered += 1 }
        if record.events & WatchEvents.exited.rawValue != 0 { counts.exited += 1 }
      case .deleted: counts.deleted += 1
      }
    }
    // The delivery's lists are built as locals and moved into it at the
    // end: built in a `ContextChanges` variable, they would make the
    // compiler copy and destroy the whole delivery twice more; this way
    // only returning it copies it.
    var inserted: [ObjectSnapshot] = []
    var updated: [ObjectUpdate] = []
    var entered: [ObjectUpdate] = []
    var exited: [ObjectUpdate] = []
    var deleted: [ObjectSnapshot] = []
    var attribution: [ObjectAttribution] = []
    // Exactly sized; a list nothing goes to allocates nothing.
    if counts.inserted > 0 { inserted.reserveCapacity(counts.inserted) }
    if counts.updated > 0 { updated.reserveCapacity(counts.updated) }
    if counts.entered > 0 { entered.reserveCapacity(counts.entered) }
    if counts.exited > 0 { exited.reserveCapacity(counts.exited) }
    if counts.deleted > 0 { deleted.reserveCapacity(counts.deleted) }
    attribution.reserveCapacity(records.count)
    // One allocation for every object's matches: each attribution is a
    // slice of it.
    let source = flat.elements
    let matches = [WatchMatch](unsafeUninitializedCapacity: source.count) { buffer, count in
      // Plain values: one memory copy.
      _ = buffer.initialize(fromContentsOf: source)
      count = source.count
    }
    for record in records {
      attribution.append(ObjectAttribution(objectID: record.objectID, matches: matches[record.range]))
      let update: ObjectUpdate
      switch record.image {
      case .inserted(let position):
        inserted.append(save.inserted[position])
        continue
      case .deleted(let position):
        deleted.append(save.deleted[position])
        continue
      case .updated(let position): update = save.updated[position]
      case .indirect(let position): update = reached[position]
      }
      if record.events & WatchEvents.updated.rawValue != 0 { updated.append(update) }
      if record.events & WatchEvents.entered.rawValue != 0 { entered.append(update) }
      if record.events & WatchEvents.exited.rawValue != 0 { exited.append(update) }
    }
    var distinctFailures: [WatchFailure] = []
    if !failures.isEmpty {
      // Each distinct failure once: an update's two images may fail alike.
      var seen: Set<WatchFailure> = []
      distinctFailures = failures.filter { seen.insert($0).inserted }.sorted { ($0.objectID, $0.watch) < ($1.objectID, $1.watch) }
    }
    return ContextChanges(
      sequenceNumber: save.sequenceNumber, author: save.author, inserted: inserted, updated: updated, entered: entered,
      exited: exited, deleted: deleted, attribution: attribution, failures: distinctFailures)
  }

  /// The changes of each watch with a handler of its own that saw
  /// something, in the order the watches first appear among the objects.
  /// Call `sort()` first: each watch's objects are then in identifier order.
  ///
  /// - Complexity: O(*m*) in the matches recorded, whatever the number of
  ///   watches.
  func routes(for save: ContextSave, in filter: MasterFilter) -> [RoutedChanges] {
    var routes: [RoutedChanges] = []
    // Watch slot → position in `routes`, once there are more than a few
    // (a short list is searched).
    var positions: [Int: Int]?
    func position(of match: WatchMatch) -> Int {
      let slot = match.watch.slot
      if let positions {
        if let position = positions[slot] { return position }
      } else if let position = routes.firstIndex(where: { $0.changes.watch == match.watch }) {
        return position
      }
      let route = filter.entries[slot].unsafelyUnwrapped.route.unsafelyUnwrapped
      routes.append(
        (route, WatchChanges(watch: match.watch, sequenceNumber: save.sequenceNumber, author: save.author)))
      if positions != nil {
        positions![slot] = routes.count - 1
      } else if routes.count > 8 {
        positions = Dictionary(uniqueKeysWithValues: routes.indices.map { (routes[$0].changes.watch.slot, $0) })
      }
      return routes.count - 1
    }
    let matches = flat.elements
    for record in records.elements {
      for match in matches[record.range] where filter.slotInfo[match.watch.slot].isRouted {
        let position = position(of: match)
        let update: ObjectUpdate
        switch record.image {
        case .inserted(let index):
          routes[position].changes.inserted.append(save.inserted[index])
          continue
        case .deleted(let index):
          routes[position].changes.deleted.append(save.deleted[index])
          continue
        case .updated(let index): update = save.updated[index]
        case .indirect(let index): update = reached[index]
        }
        switch match.event {
        case .updated: routes[position].changes.updated.append(update)
        case .entered: routes[position].changes.entered.append(update)
        case .exited: routes[position].changes.exited.append(update)
        case .inserted, .deleted: break
        }
      }
    }
    if !failures.isEmpty {
      var seen: Set<WatchFailure> = []
      let distinct = failures.filter { seen.insert($0).inserted }.sorted { ($0.objectID, $0.watch) < ($1.objectID, $1.watch) }
      for failure in distinct where filter.slotInfo[failure.watch.slot].isRouted {
        let position = position(of: WatchMatch(watch: failure.watch, event: .updated))
        routes[position].changes.failures.append(failure)
      }
    }
    return routes
  }

  /// Sorts one object's matches by watch. They come from several index
  /// lists, each in its own order, and are few: up to 16, an insertion sort
  /// costs less than the standard library's merge sort.
  private static func sortByWatch(_ matches: UnsafeMutableBufferPointer<WatchMatch>, _ range: Range<Int>) {
    guard range.count > 16 else {
      for index in range.dropFirst() {
        let match = matches[index]
        var position = index
        while position > range.lowerBound, match.watch < matches[position - 1].watch {
          matches[position] = matches[position - 1]
          position -= 1
        }
        matches[position] = match
      }
      return
    }
    if !matches[range].isSorted(by: { $0.watch < $1.watch }) { matches[range].sort { $0.watch < $1.watch } }
  }
}
