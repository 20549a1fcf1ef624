public import ObjectGraph

/// An ``ObjectMonitor`` whose object reads as a record: CoreStore's
/// `ObjectMonitor<Person>`.
///
/// ```swift
/// let monitor = try RecordObjectMonitor<Person>(context: context, objectID: ann.objectID, scheduler: .mainActor)
/// print(try monitor.record?.name ?? "deleted")
/// let token = monitor.observe { event in
///   if case .didUpdate(.success(let person), let changedKeys) = event { print(person.name, changedKeys) }
/// }
/// ```
///
/// It is an ``ObjectMonitor`` (``untyped``) that reads each snapshot it
/// reports as a record once, however many observers, closures and
/// sequences are told: a save that changes the object decodes it once. A
/// record that does not decode is reported as a failure naming the object,
/// the key and the types. When and where observers are called is the object
/// monitor's.
public final class RecordObjectMonitor<Record: EntityRecord & Sendable>: Sendable {
  /// What closures registered on the monitor receive: an event with the
  /// number of reports made with it, or the end of the reports.
  enum Signal: Sendable {
    case event(RecordObjectMonitorEvent<Record>, generation: Int)
    case finished
  }

  private struct State {
    /// The record as last reported (or read at creation); nil once the
    /// object is deleted.
    var record: Result<Record, ObjectGraphError>?
    /// How many updates and deletions were reported.
    var generation = 0
    /// Set once the deletion is reported, or the monitor goes.
    var isFinished = false
  }

  /// The follower's way back to the monitor, which it reaches weakly.
  private struct Target {
    weak var monitor: RecordObjectMonitor?
  }

  /// The same monitor, reporting snapshots.
  public let untyped: ObjectMonitor
  private let state: LockedState<State>
  private let observers: ObserverList<any RecordObjectObserver<Record>, Signal>

  /// Creates a monitor of one object, starting from its current snapshot
  /// in the context, read as a record.
  ///
  /// - Throws: ``MonitorError`` as ``ObjectMonitor/init(context:objectID:scheduler:)``
  ///   does, and with ``MonitorError/Code/entityMismatch`` when the object
  ///   is not of `Record`'s entity nor of one below it, or the schema has no
  ///   entity of `Record`'s name.
  public convenience init(
    context: ObjectContext, objectID: ObjectID, scheduler: DeliveryScheduler
  ) throws(MonitorError) {
    try self.init(context: context, objectID: objectID, scheduler: scheduler, follows: .saves)
  }

  /// Creates a monitor of one object that follows saves, pending changes
  /// or both, as ``ObjectMonitor/init(context:objectID:scheduler:follows:)``
  /// does, reporting records.
  ///
  /// - Throws: ``MonitorError`` as ``init(context:objectID:scheduler:)``.
  public init(
    context: ObjectContext, objectID: ObjectID, scheduler: DeliveryScheduler, follows: ChangeKinds
  ) throws(MonitorError) {
    let schema = context.schema
    guard let kinds = schema.kinds(of: Record.entityName) else {
      throw MonitorError(
        .entityMismatch,
        message:
          "RecordObjectMonitor<\(Record.self)>: \(Record.self).entityName is '\(Record.entityName)', "
          + "not an entity of the schema (entities: \(schema.entityNames().joined(separator: ", ")))")
    }
    let state = LockedState(State())
    let observers = ObserverList<any RecordObjectObserver<Record>, Signal>()
    let target = LockedState(Target())
    // The follower reads the starting snapshot and hears every report
    // from the first, before this monitor exists: it works on the state
    // and the observers, and reaches the monitor only to name it to
    // observers (who can only be added once it exists).
    let follower = ObjectMonitor.Follower(
      start: { snapshot in
        guard kinds.contains(snapshot.entityName) else {
          return MonitorError(
            .entityMismatch,
            message:
              "RecordObjectMonitor<\(Record.self)>: \(objectID) is a \(snapshot.entityName), "
              + "not one of \(kinds.joined(separator: ", "))")
        }
        let record = snapshot.record(Record.self)
        state.withLock { $0.record = record }
        return nil
      },
      signal: { signal in
        Self.report(signal, state: state, observers: observers, monitor: target.withLock { $0.monitor })
      })
    untyped = try ObjectMonitor(
      context: context, objectID: objectID, scheduler: scheduler, follows: follows, follower: follower)
    self.state = state
    self.observers = observers
    target.withLock { $0.monitor = self }
  }

  deinit {
    state.withLock { $0.isFinished = true }
    Self.finish(observers)
  }

  /// The monitored object's identifier.
  public var objectID: ObjectID { untyped.objectID }

  /// The object's latest record, as reported to observers (during
  /// `willUpdate` still the one before the save); nil once a save deleted
  /// it. Decoded when the save was reported, not at each read.
  ///
  /// - Throws: `ObjectGraphError` when the latest snapshot does not read
  ///   as a record, naming the object, the key and the types.
  public var record: Record? {
    get throws(ObjectGraphError) { try state.withLock { $0.record }?.get() }
  }

  /// Whether a save reported to the observers deleted the object.
  public var isObjectDeleted: Bool { untyped.isObjectDeleted }

  // MARK: Observers

  /// Adds an observer, held weakly; adding one already there changes
  /// nothing.
  public func addObserver(_ observer: some RecordObjectObserver<Record>) { observers.add(observer) }

  /// Removes an observer.
  public func removeObserver(_ observer: some RecordObjectObserver<Record>) { observers.remove(observer) }

  /// Adds a closure observer, called with each event on the monitor's
  /// scheduler, as long as the returned token is kept and not cancelled.
  public func observe(_ handler: @escaping @Sendable (RecordObjectMonitorEvent<Record>) -> Void) -> ObserverToken {
    observers.add { signal in
      if case .event(let event, _) = signal { handler(event) }
    }
  }

  /// The monitor's events, from the moment each `for await` loop starts,
  /// in order; a loop ends after ``RecordObjectMonitorEvent/didDelete(_:)``
  /// or when the monitor is released (see ``MonitorSequence``).
  public var events: MonitorSequence<RecordObjectMonitorEvent<Record>> {
    MonitorSequence { [weak self] continuation in
      let following = self?.follow { signal in
        switch signal {
        case .event(let event, _): continuation.yield(event)
        case .finished: continuation.finish()
        }
      }
      guard let following else {
        continuation.finish()
        return nil
      }
      return following.token
    }
  }

  /// Registers a closure for every signal and reads the state it starts
  /// from, in one step: the closure hears every report made after that
  /// state (and may hear the last one reflected in it, whose generation is
  /// not above the state's). Nil, with nothing registered, once the monitor
  /// has nothing more to report.
  func follow(
    _ handler: @escaping @Sendable (Signal) -> Void
  ) -> (token: ObserverToken, record: Result<Record, ObjectGraphError>?, generation: Int)? {
    state.withLock { state in
      guard !state.isFinished else { return nil }
      return (observers.add(handler), state.record, state.generation)
    }
  }

  /// Blocks until the reports of the saves made before the call have been
  /// made: for deterministic tests (see `ObjectMonitor.flush()`).
  public func flush() { untyped.flush() }

  /// Waits without blocking until the reports of the saves made before
  /// the call have been made.
  public func flush() async { await untyped.flush() }

  // MARK: Reporting

  /// Reads the untyped monitor's report as records and tells the
  /// observers; on the monitor's delivery queue.
  private static func report(
    _ signal: ObjectMonitor.Signal, state: LockedState<State>,
    observers: ObserverList<any RecordObjectObserver<Record>, Signal>, monitor: RecordObjectMonitor?
  ) {
    guard case .event(let event) = signal else { return }
    switch event {
    case .willUpdate:
      let (record, generation) = state.withLock { ($0.record, $0.generation) }
      guard let record else { return }
      notify(.willUpdate(record), generation: generation, observers, monitor)
    case .didUpdate(let snapshot, let changedKeys):
      let record = snapshot.record(Record.self)
      let generation = state.withLock { state in
        state.record = record
        state.generation += 1
        return state.generation
      }
      notify(.didUpdate(record, changedKeys: changedKeys), generation: generation, observers, monitor)
    case .didDelete(let snapshot):
      let record = snapshot.record(Record.self)
      let generation = state.withLock { state in
        state.record = nil
        state.isFinished = true
        state.generation += 1
        return state.generation
      }
      notify(.didDelete(record), generation: generation, observers, monitor)
      finish(observers)
    }
  }

  /// Tells every observer `event`. The observers are read after the state
  /// changed: one added since reads the new state, or hears this event.
  private static func notify(
    _ event: RecordObjectMonitorEvent<Record>, generation: Int,
    _ observers: ObserverList<any RecordObjectObserver<Record>, Signal>, _ monitor: RecordObjectMonitor?
  ) {
    for member in observers.snapshot() {
      switch member {
      case .object(let observer):
        guard let monitor else { continue }
        switch event {
        case .willUpdate(let record): observer.objectMonitor(monitor, willUpdate: record)
        case .didUpdate(let record, let changedKeys):
          observer.objectMonitor(monitor, didUpdate: record, changedKeys: changedKeys)
        case .didDelete(let record): observer.objectMonitor(monitor, didDelete: record)
        }
      case .closure(let handler):
        handler(.event(event, generation: generation))
      }
    }
  }

  /// Ends every event sequence (closure observers ignore the signal).
  private static func finish(_ observers: ObserverList<any RecordObjectObserver<Record>, Signal>) {
    for member in observers.snapshot() {
      if case .closure(let handler) = member { handler(.finished) }
    }
  }
}
