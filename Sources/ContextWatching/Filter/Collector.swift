import ObjectGraph
import PredicateDSL

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
    in filter: borrowing MasterFilter
  ) {
    if info.filtersEvents {
      guard filter.entries[slot].unsafelyUnwrapped.reports(event, of: objectID) else { return }
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

  /// Drops the matches of the watches `refuses` names, and the records
  /// left with none, in place (each record's matches stay consecutive, in
  /// record order).
  func removeMatches(where refuses: (WatchMatch) -> Bool) {
    let matches = flat.mutableElements
    let records = records.mutableElements
    var (keptMatches, keptRecords) = (0, 0)
    for index in records.indices {
      var record = records[index]
      let start = keptMatches
      var events: UInt8 = 0
      for position in record.range where !refuses(matches[position]) {
        matches[keptMatches] = matches[position]
        events |= WatchEvents(matches[position].event).rawValue
        keptMatches += 1
      }
      guard keptMatches > start else { continue }
      (record.start, record.count, record.events) = (start, keptMatches - start, events)
      records[keptRecords] = record
      keptRecords += 1
    }
    flat.removeLast(matches.count - keptMatches)
    self.records.removeLast(records.count - keptRecords)
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
    let matches = [WatchMatch](writingInPlace: source.count) { buffer, count in
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
      distinctFailures = failures.filter { seen.insert($0).inserted }.sorted {
        ($0.objectID, $0.watch) < ($1.objectID, $1.watch)
      }
    }
    return ContextChanges(
      sequenceNumber: save.sequenceNumber, author: save.author, inserted: inserted, updated: updated, entered: entered,
      exited: exited, deleted: deleted, attribution: attribution, failures: distinctFailures,
      cause: ChangeCause(save.kind))
  }

  /// The changes of each watch with a handler of its own that saw
  /// something, in the order the watches first appear among the objects.
  /// Call `sort()` first: each watch's objects are then in identifier order.
  ///
  /// - Complexity: O(*m*) in the matches recorded, whatever the number of
  ///   watches.
  func routes(for save: ContextSave, in filter: borrowing MasterFilter) -> [RoutedChanges] {
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
        (
          route,
          WatchChanges(
            watch: match.watch, sequenceNumber: save.sequenceNumber, author: save.author, cause: ChangeCause(save.kind))
        ))
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
      let distinct = failures.filter { seen.insert($0).inserted }.sorted {
        ($0.objectID, $0.watch) < ($1.objectID, $1.watch)
      }
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
