import Dispatch
public import ObjectGraph
public import Observation

/// A list of records as an `@Observable` model, kept up to date by a
/// ``RecordListMonitor`` on the main actor: what a SwiftUI view, or any
/// `withObservationTracking` user, reads to re-render when the list
/// changes.
///
/// ```swift
/// @MainActor
/// func peopleModel(_ context: ObjectContext) throws -> RecordListModel<Person> {
///   try RecordListModel(RecordListMonitor<Person>(
///     context: context,
///     request: ListRequest(Person.self, where: "age >= %d", arguments: [18],
///                          sortedBy: [.ascending("city"), .ascending("name")], sectionedBy: "city"),
///     scheduler: .mainActor))
/// }
/// ```
///
/// Each change of the list the monitor delivers changes the model once, in
/// one main-actor turn: one change notification per delivered save, none
/// for a save that does not touch the list. The model holds every listed
/// record, decoded once: when it is made, and then only the objects each
/// change inserts, moves or updates (the records its change carries),
/// placed as a table view applies a batch update. The monitor's scheduler
/// may be any: with ``DeliveryScheduler/mainActor`` the model changes
/// during the delivery; otherwise the delivery hands the change to the
/// main queue.
///
/// When a listed object does not read as a record, the model keeps the
/// records it last read in full, sets ``error``, and reads the whole list
/// again at the next change until every record reads.
@MainActor
@Observable
public final class RecordListModel<Record: EntityRecord & Sendable> {
  /// Everything the model shows, changed in one step per delivery.
  struct State {
    var sections: [RecordListSection<Record>] = []
    var count = 0
    var latestChanges: RecordListChanges<Record>?
    var error: ObjectGraphError?
    /// The generation of the content the sections show.
    var generation = -1
    /// Whether the sections are behind the list: a record did not read.
    var isStale = false
  }

  private var state = State()
  /// The monitor the model follows; it lives as long as the model.
  @ObservationIgnored public let monitor: RecordListMonitor<Record>
  @ObservationIgnored private var token: ObserverToken?

  /// Creates a model of the monitor's list, reading every listed record
  /// now, and following the monitor from now on.
  public init(_ monitor: RecordListMonitor<Record>) {
    self.monitor = monitor
    let onMainActor = monitor.untyped.deliversOnMainActor
    token = monitor.observe { [weak self] update in
      if onMainActor {
        MainActor.assumeIsolated { self?.apply(update) }
      } else {
        DispatchQueue.main.async { MainActor.assumeIsolated { self?.apply(update) } }
      }
    }
    // Read after following: a change delivered meanwhile is either in
    // this content or told to the closure (and applied only if it is
    // newer than what is shown).
    var start = State()
    start.reload(monitor.content)
    state = start
  }

  /// The sections with their records, in order (one for a list without
  /// sections).
  public var sections: [RecordListSection<Record>] { state.sections }

  /// Every listed record with its object's identifier, in order.
  ///
  /// - Complexity: O(*n*).
  public var items: [ListedRecord<Record>] { state.sections.flatMap(\.items) }

  /// Every listed record, in order.
  ///
  /// - Complexity: O(*n*).
  public var records: [Record] { state.sections.flatMap { $0.items.map(\.record) } }

  /// The number of objects listed.
  public var count: Int { state.count }

  /// The last change applied, with its records; nil before the first.
  public var latestChanges: RecordListChanges<Record>? { state.latestChanges }

  /// Why the last change could not be shown in full: a listed object that
  /// does not read as a record. Nil when every listed record reads.
  public var error: ObjectGraphError? { state.error }

  /// Waits until the changes of the saves made before the call are shown:
  /// the monitor's deliveries, then the model's turn on the main actor.
  public func flush() async {
    await monitor.flush()
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      DispatchQueue.main.async { continuation.resume() }
    }
  }

  private func apply(_ update: RecordListUpdate<Record>) {
    // Already shown: the content read at creation had it.
    guard update.content.untyped.generation > state.generation else { return }
    state.apply(update)
  }
}

extension RecordListModel.State {
  /// Shows `update`: in place when the sections are up to date and every
  /// record the change places reads, else by reading the whole list.
  mutating func apply(_ update: RecordListUpdate<Record>) {
    latestChanges = update.changes
    count = update.content.count
    generation = update.content.untyped.generation
    if !isStale, let placed = Self.placedRecords(update.changes) {
      place(update.changes, placed)
      error = nil
    } else {
      reload(update.content)
    }
  }

  /// Reads every listed record; on a failure keeps the sections as they
  /// are and notes it.
  mutating func reload(_ content: RecordListContent<Record>) {
    count = content.count
    generation = content.untyped.generation
    var read: [RecordListSection<Record>] = []
    read.reserveCapacity(content.numberOfSections)
    for index in 0..<content.numberOfSections {
      let snapshots = content.untyped.objects(inSection: index)
      var items: [ListedRecord<Record>] = []
      items.reserveCapacity(snapshots.count)
      for snapshot in snapshots {
        switch snapshot.record(Record.self) {
        case .success(let record): items.append(ListedRecord(id: snapshot.objectID, record: record))
        case .failure(let failure):
          error = failure
          isStale = true
          return
        }
      }
      read.append(RecordListSection(info: content.section(at: index), items: items))
    }
    sections = read
    error = nil
    isStale = false
  }

  /// The records a change places (inserted, moved, updated, in that
  /// order), or nil, with the error noted, when one does not read.
  private static func placedRecords(_ changes: RecordListChanges<Record>) -> [Record]? {
    var records: [Record] = []
    records.reserveCapacity(changes.inserted.count + changes.moved.count + changes.updated.count)
    for result in changes.inserted.map(\.record) + changes.moved.map(\.record) + changes.updated.map(\.record) {
      guard case .success(let record) = result else { return nil }
      records.append(record)
    }
    return records
  }

  /// Applies a batch update as a table view does: removals (objects, then
  /// sections) from the end in old coordinates, then insertions (sections,
  /// then objects) from the start in new ones, then updates in place.
  private mutating func place(_ changes: RecordListChanges<Record>, _ placed: [Record]) {
    var removals = changes.deleted.map(\.indexPath) + changes.moved.map(\.from)
    removals.sort(by: >)
    for path in removals { sections[path.section].items.remove(at: path.item) }
    for section in changes.deletedSections.reversed() { sections.remove(at: section.index) }
    for section in changes.insertedSections {
      sections.insert(RecordListSection(info: section.info, items: []), at: section.index)
    }
    var next = placed.makeIterator()
    var insertions: [(path: ListIndexPath, item: ListedRecord<Record>)] = []
    insertions.reserveCapacity(changes.inserted.count + changes.moved.count)
    for change in changes.inserted {
      insertions.append((change.indexPath, ListedRecord(id: change.object.objectID, record: next.next()!)))
    }
    for move in changes.moved {
      insertions.append((move.to, ListedRecord(id: move.object.objectID, record: next.next()!)))
    }
    insertions.sort { $0.path < $1.path }
    for (path, item) in insertions { sections[path.section].items.insert(item, at: path.item) }
    for change in changes.updated {
      sections[change.indexPath.section].items[change.indexPath.item] = ListedRecord(
        id: change.object.objectID, record: next.next()!)
    }
    for index in sections.indices { sections[index].info.count = sections[index].items.count }
  }
}
