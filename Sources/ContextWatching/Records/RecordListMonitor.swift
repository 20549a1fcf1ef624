public import Foundation
public import ObjectGraph
import Synchronization

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
  /// The same list, read as snapshots.
  public let untyped: ListMonitor
  /// The observers (each an `any RecordListObserver<Record>`) and the
  /// closures (each taking a ``RecordListDelivery``), in a registry of
  /// concrete types: one whose types depended on `Record` would be read
  /// through the record type's metadata at every change.
  private let observers = ObserverList<any AnyObject & Sendable, RecordListDelivery>()
  /// Whether an observer object was ever added: until one is, a change
  /// has no one to tell that it will come, and the registry is not read
  /// for it.
  private let hadObserverObjects = Atomic(false)
  /// The observers told that the list will change, to be told the rest of
  /// that change.
  private let told = LockedState<[AnyObject]>([])
  private let relay: RecordListRelay
  /// Reads a change's objects as records and hands them to the observers
  /// told of it and to the closures: made where the monitor is created,
  /// so that it is compiled for the record type there (see
  /// ``deliver(_:_:told:hasClosures:closures:)``).
  private let handOut: Delivering

  /// How the monitor delivers a change: to itself, the list's changes, the
  /// observers told it would come, whether closures are registered, and a
  /// function that calls each of them.
  @usableFromInline
  typealias Delivering =
    @Sendable (
      RecordListMonitor, ListChanges, _ told: [AnyObject], _ hasClosures: Bool,
      _ closures: (RecordListDelivery) -> Void
    ) -> Void

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
    // Inlined where the record type is known: the delivery of each
    // change (its objects' decoding, the update the closures get) is
    // compiled for it, rather than run through the record type's metadata.
    try self.init(context: context, request: request, scheduler: scheduler, follows: .saves) {
      Self.deliver($0, $1, told: $2, hasClosures: $3, closures: $4)
    }
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
    try self.init(context: context, request: request, scheduler: scheduler, follows: follows) {
      Self.deliver($0, $1, told: $2, hasClosures: $3, closures: $4)
    }
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
    ) { Self.deliver($0, $1, told: $2, hasClosures: $3, closures: $4) }
  }

  @usableFromInline
  init(
    context: ObjectContext, request: ListRequest, scheduler: DeliveryScheduler, follows: ChangeKinds,
    delivery: DeliveryPolicy = .everySave, clock: any WatchClock = SystemWatchClock.shared,
    deliver: @escaping Delivering
  ) throws(MonitorError) {
    let relay = RecordListRelay()
    do {
      try Self.check(request, schema: context.schema)
      untyped = try ListMonitor(
        context: context, request: request, scheduler: scheduler, follows: follows, delivery: delivery,
        clock: clock, follower: relay)
    } catch {
      throw MonitorError(refusing: error)
    }
    self.relay = relay
    handOut = deliver
    relay.attach(self)
  }

  deinit {
    // Ends every update sequence (closures ignore the signal).
    for case .closure(let handler) in observers.snapshot() { handler(.finished) }
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
    hadObserverObjects.store(true, ordering: .relaxed)
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
  @inlinable
  public func observe(_ handler: @escaping @Sendable (RecordListUpdate<Record>) -> Void) -> ObserverToken {
    // Inlined where the record type is known: the closure that reads each
    // update is compiled for it, rather than run through the record type's
    // metadata.
    register { delivery in
      guard let address = delivery.update(of: Record.self) else { return }
      // Taken out for the call and put back, rather than copied (a copy
      // retains each of its arrays): the closures are called one at a
      // time, so no one else reads it meanwhile.
      let update = address.move()
      handler(update)
      address.initialize(to: consume update)
    }
  }

  /// Registers a closure for every delivery, as long as the returned
  /// token lives.
  @usableFromInline
  func register(_ handler: @escaping @Sendable (RecordListDelivery) -> Void) -> ObserverToken {
    observers.add(handler)
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
      return register { delivery in
        if let update = delivery.update(of: Record.self) {
          continuation.yield(update.pointee)
        } else {
          continuation.finish()
        }
      }
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
  fileprivate func refetch(finished: Bool) {
    for case .object(let member) in observers.snapshot() {
      guard let observer = member as? any RecordListObserver<Record> else { continue }
      if finished { observer.listMonitorDidRefetch(self) } else { observer.listMonitorWillRefetch(self) }
    }
  }

  /// Tells the observers that the list will change; on the delivery queue.
  fileprivate func willChange() {
    // A monitor only ever observed by closures has no one to tell. An
    // observer added while this runs is told from the next change on, as
    // one added after the change began.
    guard hadObserverObjects.load(ordering: .relaxed) else { return }
    var observing: [AnyObject] = []
    for case .object(let observer) in observers.snapshot() { observing.append(observer) }
    guard !observing.isEmpty else { return }
    told.withLock { $0 = observing }
    for case let observer as any RecordListObserver<Record> in observing { observer.listMonitorWillChange(self) }
  }

  /// Hands a change to ``deliver``, for the observers told "will change"
  /// and the closures registered now.
  fileprivate func didApply(_ changes: ListChanges) {
    // Only `willChange` fills `told`, and only once an observer object
    // was added.
    let toldObservers =
      !hadObserverObjects.load(ordering: .relaxed)
      ? []
      : told.withLock { told -> [AnyObject] in
        guard !told.isEmpty else { return [] }
        defer { told = [] }
        return told
      }
    // Closures are read after the change: one registered since sees the
    // new content (a model reads it then), or this update.
    let members = changes.isEmpty ? [] : observers.snapshot()
    let hasClosures = members.contains { member in
      if case .closure = member { true } else { false }
    }
    guard !toldObservers.isEmpty || hasClosures else { return }
    handOut(self, changes, toldObservers, hasClosures) { delivery in
      for case .closure(let handler) in members { handler(delivery) }
    }
  }

  /// Delivers one change: reads each changed object as a record once,
  /// tells the observers in `told` what changed and then that the list
  /// changed, then, when `hasClosures`, hands the update to `closures`
  /// (which calls each registered closure with it).
  ///
  /// Inlined into the closure the initializers make, where `Record` is a
  /// concrete type, so that decoding, building the update and handing it
  /// out are specialized for it (the observers' cast and `Codable`'s
  /// container box stay dynamic). The closures get the update's
  /// address, valid during the call (see ``RecordListDelivery``).
  @inlinable
  static func deliver(
    _ monitor: RecordListMonitor, _ changes: ListChanges, told: [AnyObject],
    hasClosures: Bool, closures: (RecordListDelivery) -> Void
  ) {
    let records = RecordListChanges<Record>(changes)
    if !told.isEmpty {
      let observing = told.compactMap { $0 as? any RecordListObserver<Record> }
      for observer in observing {
        for change in records.deleted { observer.listMonitor(monitor, didDelete: change) }
        for section in records.deletedSections {
          observer.listMonitor(monitor, didDeleteSection: section.info, at: section.index)
        }
        for section in records.insertedSections {
          observer.listMonitor(monitor, didInsertSection: section.info, at: section.index)
        }
        for change in records.inserted { observer.listMonitor(monitor, didInsert: change) }
        for move in records.moved { observer.listMonitor(monitor, didMove: move) }
        for change in records.updated { observer.listMonitor(monitor, didUpdate: change) }
      }
      for observer in observing { observer.listMonitorDidChange(monitor) }
    }
    guard hasClosures else { return }
    var update = RecordListUpdate(changes: records, content: RecordListContent(monitor.untyped.content))
    withUnsafeMutablePointer(to: &update) { address in
      let delivery = RecordListDelivery(UnsafeMutableRawPointer(address))
      closures(delivery)
    }
  }
}

extension RecordListMonitor: RecordListRelayTarget {}

/// What a ``RecordListMonitor`` hands the closures registered on it: the
/// address of the update it delivers, or the end of its reports (which
/// only sequences act on).
///
/// It is not generic, so that the monitor's registry is of concrete types.
/// Only a monitor's ``RecordListMonitor/deliver(_:_:told:hasClosures:closures:)``
/// makes an update's delivery, and only for the closures registered on that
/// monitor, which read it with the monitor's record type: the address is
/// always of a `RecordListUpdate` of the record type it is read as.
@usableFromInline
struct RecordListDelivery: @unchecked Sendable {
  // @unchecked: the address is read only during the call that hands it
  // out, on the thread that makes it; a closure that moves the update out
  // puts it back before it returns, and one that keeps it keeps a copy (an
  // update is Sendable).

  /// The update, valid during the call that hands out the delivery; nil
  /// for ``finished``. A closure may move it out while it runs, and puts
  /// it back before it returns.
  @usableFromInline let address: UnsafeMutableRawPointer?

  /// The end of the monitor's reports: it is being released.
  static let finished = RecordListDelivery(nil)

  /// A delivery of the update at `address` (nil for ``finished``).
  @usableFromInline
  init(_ address: UnsafeMutableRawPointer?) { self.address = address }

  /// The update delivered; nil at the end of the monitor's reports.
  ///
  /// - Precondition: `Record` is the record type of the monitor that
  ///   delivers (the closure's own monitor's).
  @inlinable
  func update<Record>(of _: Record.Type) -> UnsafeMutablePointer<RecordListUpdate<Record>>? {
    address?.assumingMemoryBound(to: RecordListUpdate<Record>.self)
  }
}

/// A record list monitor's side of each change, as its relay calls it.
private protocol RecordListRelayTarget: AnyObject, Sendable {
  /// The list is about to change.
  func willChange()
  /// The list is about to be, or was, fetched again.
  func refetch(finished: Bool)
  /// The list changed by `changes`.
  func didApply(_ changes: ListChanges)
}

/// Hears the list monitor for a record monitor, which it reaches weakly:
/// both monitors hold the relay, and the record monitor holds the list
/// monitor. It is not generic, so that its lock and its reference are of
/// concrete types (a relay generic in the record type reads their types'
/// metadata at run time on each change).
private final class RecordListRelay: ListChangesRelay {
  private struct Target {
    weak var monitor: (any RecordListRelayTarget)?
  }
  private let target = LockedState(Target())

  func attach(_ monitor: some RecordListRelayTarget) { target.withLock { $0.monitor = monitor } }

  func listMonitorWillChange(_ monitor: ListMonitor) { target.withLock { $0.monitor }?.willChange() }

  func listMonitorWillRefetch(_ monitor: ListMonitor) { target.withLock { $0.monitor }?.refetch(finished: false) }

  func listMonitorDidRefetch(_ monitor: ListMonitor) { target.withLock { $0.monitor }?.refetch(finished: true) }

  func listMonitor(_ monitor: ListMonitor, didApply changes: ListChanges) {
    target.withLock { $0.monitor }?.didApply(changes)
  }
}
