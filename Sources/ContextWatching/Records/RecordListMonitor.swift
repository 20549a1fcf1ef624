public import Foundation
public import ObjectGraph

/// A ``ListMonitor`` whose objects read as records: CoreStore's
/// `ListMonitor<Person>`.
///
/// ```swift
/// let people = try RecordListMonitor<Person>(
///   context: context,
///   request: ListRequest(Person.self, where: "age >= %d", arguments: [18],
///                        sortedBy: [.ascending("city"), .ascending("name")], sectionedBy: "city"),
///   scheduler: .mainActor)
/// let first = try people[ListIndexPath(item: 0, section: 0)]    // a Person
/// let token = people.observe { update in
///   for change in update.changes.updated { print(change.indexPath, try? change.record.get()) }
/// }
/// ```
///
/// It is a ``ListMonitor`` (``untyped``) with a view: reads decode the
/// object they return, then, and throw `ObjectGraphError` for an object
/// that does not read as a record; deliveries carry each changed object's
/// record, decoded once per change however many observers, closures and
/// sequences read it, as a `Result`. Everything else (the request, the
/// order, index paths, the scheduler, when and in which order observers
/// are called) is the list monitor's.
public final class RecordListMonitor<Record: EntityRecord & Sendable>: Sendable {
  /// What closures registered on the monitor receive: an update, or the end
  /// of the monitor's reports (which only sequences act on).
  enum Signal: Sendable {
    case update(RecordListUpdate<Record>)
    case finished
  }

  /// The same list, read as snapshots.
  public let untyped: ListMonitor
  /// The observers (each an `any RecordListObserver<Record>`) and the
  /// closures (each taking a `Signal`), in a registry of concrete types:
  /// one whose types depended on `Record` would be read through the record
  /// type's metadata at every change.
  private let observers = ObserverList<any AnyObject & Sendable, any Sendable>()
  /// The observers told that the list will change, to be told the rest of
  /// that change.
  private let told = LockedState<[AnyObject]>([])
  private let relay: Relay
  /// Reads a change's objects as records: made where the monitor is
  /// created, so that it is compiled for the record type there.
  private let read: @Sendable (ListChanges) -> RecordListChanges<Record>

  /// Creates a monitor of `request` over `context`'s objects, fetched now.
  ///
  /// - Throws: ``MonitorError`` as ``ListMonitor/init(context:request:scheduler:)``
  ///   does, with ``MonitorError/Code/entityMismatch`` when the request
  ///   lists an entity that is not `Record`'s entity nor one below it, and
  ///   ``MonitorError/Code/unknownEntity`` when the schema has no entity of
  ///   `Record`'s name.
  @inlinable
  public convenience init(
    context: ObjectContext, request: ListRequest, scheduler: DeliveryScheduler
  ) throws(MonitorError) {
    // Inlined where the record type is known: the decoding of each
    // change's objects is compiled for it, rather than run through the
    // record type's metadata.
    try self.init(context: context, request: request, scheduler: scheduler, follows: .saves) { RecordListChanges($0) }
  }

  /// Creates a monitor of `request` that follows saves, pending changes or
  /// both, as ``ListMonitor/init(context:request:scheduler:follows:)``
  /// does, reporting records.
  ///
  /// - Throws: ``MonitorError`` as ``init(context:request:scheduler:)``.
  @inlinable
  public convenience init(
    context: ObjectContext, request: ListRequest, scheduler: DeliveryScheduler, follows: ChangeKinds
  ) throws(MonitorError) {
    try self.init(context: context, request: request, scheduler: scheduler, follows: follows) { RecordListChanges($0) }
  }

  /// Creates a monitor of `request` that delivers by `delivery` and reads
  /// time on `clock`, as
  /// ``ListMonitor/init(context:request:scheduler:follows:delivery:clock:)``
  /// does, reporting records.
  ///
  /// - Throws: ``MonitorError`` as that initializer does.
  @inlinable
  public convenience init(
    context: ObjectContext, request: ListRequest, scheduler: DeliveryScheduler, follows: ChangeKinds = .saves,
    delivery: DeliveryPolicy, clock: any WatchClock = SystemWatchClock.shared
  ) throws(MonitorError) {
    try self.init(
      context: context, request: request, scheduler: scheduler, follows: follows, delivery: delivery, clock: clock
    ) { RecordListChanges($0) }
  }

  @usableFromInline
  init(
    context: ObjectContext, request: ListRequest, scheduler: DeliveryScheduler, follows: ChangeKinds,
    delivery: DeliveryPolicy = .everySave, clock: any WatchClock = SystemWatchClock.shared,
    read: @escaping @Sendable (ListChanges) -> RecordListChanges<Record>
  ) throws(MonitorError) {
    let relay = Relay()
    do {
      try Self.check(request, schema: context.schema)
      untyped = try ListMonitor(
        context: context, request: request, scheduler: scheduler, follows: follows, delivery: delivery,
        clock: clock, follower: relay)
    } catch {
      throw MonitorError(refusing: error)
    }
    self.relay = relay
    self.read = read
    relay.attach(self)
  }

  deinit {
    let finished: any Sendable = Signal.finished
    for member in observers.snapshot() {
      if case .closure(let handler) = member { handler(finished) }
    }
  }

  /// Refuses a request whose objects are not `Record`'s.
  static func check(_ request: ListRequest, schema: ObjectSchema) throws(WatchError) {
    guard let kinds = schema.kinds(of: Record.entityName) else {
      throw WatchError(
        .unknownEntity, watch: request.displayLabel, entity: Record.entityName,
        message:
          "\(Record.self).entityName is '\(Record.entityName)', not an entity of the schema "
          + "(entities: \(schema.entityNames().joined(separator: ", ")))")
    }
    // An unknown entity is the list monitor's error to report.
    guard schema.entity(named: request.entity) == nil || kinds.contains(request.entity) else {
      throw WatchError(
        .entityMismatch, watch: request.displayLabel, entity: request.entity,
        message:
          "\(request.entity) objects are not \(Record.self) records, which read \(Record.entityName) "
          + "(\(kinds.joined(separator: ", ")))")
    }
  }

  // MARK: Reading

  /// The content as of the last delivered change.
  public var content: RecordListContent<Record> { RecordListContent(untyped.content) }

  /// The number of objects listed.
  public var count: Int { untyped.count }

  /// The number of sections (1 for a list without sections).
  public var numberOfSections: Int { untyped.numberOfSections }

  /// A section's value, name and count.
  public func section(at index: Int) -> ListSectionInfo { untyped.section(at: index) }

  /// Every section, in order.
  public var sections: [ListSectionInfo] { untyped.sections }

  /// The record at a position in the whole list.
  ///
  /// - Precondition: `position` is less than ``count``.
  public subscript(position: Int) -> Record {
    get throws(ObjectGraphError) { try content[position] }
  }

  /// The record at an index path.
  ///
  /// - Precondition: The index path is in the list.
  public subscript(indexPath: ListIndexPath) -> Record {
    get throws(ObjectGraphError) { try content[indexPath] }
  }

  /// The record at an `IndexPath` (section, then item).
  ///
  /// - Precondition: The index path has two indexes and is in the list.
  public subscript(indexPath: IndexPath) -> Record {
    get throws(ObjectGraphError) { try content[indexPath] }
  }

  /// The records of one section, in order.
  ///
  /// - Complexity: O(*m* log *n*) and *m* decodings for *m* objects in the
  ///   section.
  public func records(inSection index: Int) throws(ObjectGraphError) -> [Record] {
    try content.records(inSection: index)
  }

  /// Every listed record, in order.
  ///
  /// - Complexity: O(*n*) and *n* decodings.
  public var records: [Record] {
    get throws(ObjectGraphError) { try content.records }
  }

  /// The identifiers of the listed objects, in order.
  public var objectIDs: [ObjectID] { untyped.objectIDs }

  /// The index path of a listed object; nil when it is not listed.
  ///
  /// - Complexity: O(log *n*).
  public func indexPath(of objectID: ObjectID) -> ListIndexPath? { untyped.indexPath(of: objectID) }

  // MARK: Observing

  /// Adds an observer, held weakly; adding one twice changes nothing.
  ///
  /// - Complexity: O(log *n*) amortized in the observers.
  public func addObserver(_ observer: some RecordListObserver<Record>) {
    observers.add(observer as any AnyObject & Sendable)
  }

  /// Removes an observer.
  ///
  /// - Complexity: O(log *n*) amortized in the observers.
  public func removeObserver(_ observer: some RecordListObserver<Record>) {
    observers.remove(observer as any AnyObject & Sendable)
  }

  /// Calls `handler` on the monitor's scheduler once per change of the
  /// list, with the changes (their records decoded) and the new content, as
  /// long as the returned token lives.
  public func observe(_ handler: @escaping @Sendable (RecordListUpdate<Record>) -> Void) -> ObserverToken {
    follow { signal in
      if case .update(let update) = signal { handler(update) }
    }
  }

  /// The changes of the list, one element per change with the new content,
  /// from the moment each `for await` loop starts; a loop ends when the
  /// monitor is released (see ``MonitorSequence``).
  public var updates: MonitorSequence<RecordListUpdate<Record>> {
    MonitorSequence { [weak self] continuation in
      guard let self else {
        continuation.finish()
        return nil
      }
      return follow { signal in
        switch signal {
        case .update(let update): continuation.yield(update)
        case .finished: continuation.finish()
        }
      }
    }
  }

  /// Registers a closure for every signal: how the models follow the list.
  func follow(_ handler: @escaping @Sendable (Signal) -> Void) -> ObserverToken {
    observers.add { event in
      // Only this monitor sends, and it sends signals.
      if let signal = event as? Signal { handler(signal) }
    }
  }

  /// Blocks until every change of the saves made before the call has been
  /// delivered: for deterministic tests.
  ///
  /// - Important: Not from the monitor's scheduler, where it would wait
  ///   forever (see `ListMonitor.flush()`).
  public func flush() { untyped.flush() }

  /// Waits without blocking until every change of the saves made before
  /// the call has been delivered.
  public func flush() async { await untyped.flush() }

  // MARK: Delivering

  /// Tells the observers that the list will be, or was, fetched again; on
  /// the delivery queue.
  private func refetch(finished: Bool) {
    for case .object(let member) in observers.snapshot() {
      guard let observer = member as? any RecordListObserver<Record> else { continue }
      if finished { observer.listMonitorDidRefetch(self) } else { observer.listMonitorWillRefetch(self) }
    }
  }

  /// Tells the observers that the list will change; on the delivery queue.
  private func willChange() {
    var observing: [AnyObject] = []
    for case .object(let observer) in observers.snapshot() { observing.append(observer) }
    guard !observing.isEmpty else { return }
    told.withLock { $0 = observing }
    for case let observer as any RecordListObserver<Record> in observing { observer.listMonitorWillChange(self) }
  }

  /// Tells the observers told "will change" what changed, then the
  /// closures, each change's record decoded once for all of them.
  private func didApply(_ changes: ListChanges) {
    let toldObservers = told.withLock { told -> [AnyObject] in
      guard !told.isEmpty else { return [] }
      defer { told = [] }
      return told
    }
    // Cast outside the lock, and only when someone was told: the cast's
    // array type is looked up at run time.
    let observing = toldObservers.isEmpty ? [] : toldObservers.compactMap { $0 as? any RecordListObserver<Record> }
    // Closures are read after the change: one registered since sees the
    // new content (a model reads it then), or this update.
    var handlers: [@Sendable (any Sendable) -> Void] = []
    if !changes.isEmpty {
      for case .closure(let handler) in observers.snapshot() { handlers.append(handler) }
    }
    guard !observing.isEmpty || !handlers.isEmpty else { return }
    let records = read(changes)
    for observer in observing {
      for change in records.deleted { observer.listMonitor(self, didDelete: change) }
      for section in records.deletedSections {
        observer.listMonitor(self, didDeleteSection: section.info, at: section.index)
      }
      for section in records.insertedSections {
        observer.listMonitor(self, didInsertSection: section.info, at: section.index)
      }
      for change in records.inserted { observer.listMonitor(self, didInsert: change) }
      for move in records.moved { observer.listMonitor(self, didMove: move) }
      for change in records.updated { observer.listMonitor(self, didUpdate: change) }
    }
    for observer in observing { observer.listMonitorDidChange(self) }
    guard !handlers.isEmpty else { return }
    let update: any Sendable = Signal.update(
      RecordListUpdate(changes: records, content: RecordListContent(untyped.content)))
    for handler in handlers { handler(update) }
  }

  /// Hears the list monitor for the record monitor, which it reaches
  /// weakly: both monitors hold the relay, and the record monitor holds the
  /// list monitor. (A part of the monitor, so it shares its file.)
  private final class Relay: ListChangesRelay {
    private struct Target {
      weak var monitor: RecordListMonitor?
    }
    private let target = LockedState(Target())

    func attach(_ monitor: RecordListMonitor) { target.withLock { $0.monitor = monitor } }

    func listMonitorWillChange(_ monitor: ListMonitor) { target.withLock { $0.monitor }?.willChange() }

    func listMonitorWillRefetch(_ monitor: ListMonitor) { target.withLock { $0.monitor }?.refetch(finished: false) }

    func listMonitorDidRefetch(_ monitor: ListMonitor) { target.withLock { $0.monitor }?.refetch(finished: true) }

    func listMonitor(_ monitor: ListMonitor, didApply changes: ListChanges) {
      target.withLock { $0.monitor }?.didApply(changes)
    }
  }
}
