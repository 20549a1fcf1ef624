public import ObjectGraph
import PredicateDSL

/// Keeps the latest saved snapshot of one object of a context, and tells
/// observers before and after each save that changes it, and when it is
/// deleted: CoreStore's `ObjectMonitor`, on any scheduler.
///
/// A monitor is one watch of a watcher shared by every object monitor of
/// its context (an instance filter on the object, with the monitor as its
/// handler), so it is kept up to date by the watcher's master filter, and
/// 10,000 monitors on a context cost a save one lookup per changed object.
/// A change to one of the object's relationships (a target added, removed,
/// or deleted) is an update with that key. A save that changes only keys
/// the schema ignores for the entity (`EntityDescription.ignoredKeys`) is
/// not reported, and ``object`` keeps the snapshot of the last reported
/// save.
///
/// ```swift
/// let monitor = try ObjectMonitor(context: context, objectID: ann.objectID, scheduler: .queue(.main))
/// monitor.addObserver(badge)                      // an ObjectObserver, held weakly
/// let token = monitor.observe { event in print(event) }
/// for await event in monitor.events { print(event) }
/// ```
///
/// Observers are called on the monitor's scheduler, one save at a time, in
/// save order, each change exactly once: first `willUpdate` (``object``
/// still the snapshot before the save), then `didUpdate` with the changed
/// keys (``object`` the new snapshot), or `didDelete` (``object`` nil). The
/// monitor holds its observers weakly and keeps its context alive, as
/// every monitor does (see ``ListMonitor/context``).
/// Releasing the monitor stops its reports (callbacks already enqueued are
/// dropped) and ends its event sequences.
public final class ObjectMonitor: Sendable {
  /// The monitored object's identifier.
  public let objectID: ObjectID
  /// The object's context, held strongly, as a ``ListMonitor`` holds its
  /// context (and NSFetchedResultsController its managed object context):
  /// a monitor keeps its context alive, and the context does not keep its
  /// monitors.
  public let context: ObjectContext
  /// What the monitor follows: saves (the default), pending changes (see
  /// ``WatchOptions/follows``), or both.
  public let follows: ChangeKinds

  private struct State {
    /// The latest snapshot reported (or taken at creation); nil once the
    /// object is deleted.
    var object: ObjectSnapshot?
    var token: WatchToken?
    /// Set once the deletion is reported, or the monitor goes: event
    /// sequences made after that end at once.
    var isFinished = false
    /// The context's last save when the watch was added: the snapshot
    /// taken then already shows it and every save before it.
    var firstSequenceNumber = 0
    /// Keeps a follower's closure registered as long as the monitor lives.
    var follower: ObserverToken?
  }

  /// A closure observer's view of a report: an event, or the end of the
  /// monitor's reports (which only event sequences act on).
  enum Signal: Sendable {
    case event(ObjectMonitorEvent)
    case finished
  }

  private let state = LockedState(State())
  private let observers = ObserverList<any ObjectObserver, Signal>()
  private let deliveries: MonitorDeliveryQueue
  /// The shared watcher; held so that it lives as long as its monitors.
  private let hub: MonitorHub

  /// Creates a monitor of one object, starting from its current snapshot
  /// in the context (with changes not yet saved, if it has any).
  ///
  /// ```swift
  /// let monitor = try ObjectMonitor(context: context, objectID: id, scheduler: .queue(.main))
  /// print(monitor.object?["name"] ?? "deleted")
  /// ```
  ///
  /// - Parameters:
  ///   - context: The object's context, which the monitor keeps alive.
  ///   - objectID: The object: a live object of `context` (inserted, even
  ///     unsaved, or saved; not deleted).
  ///   - scheduler: Where observers are called.
  /// - Throws: ``MonitorError`` with ``MonitorError/Code/unknownObject``
  ///   when the context has no such live object.
  /// - Important: Waits for the context's queue (runs at once on it), where
  ///   the object is read and the watch added, so that no save falls
  ///   between the snapshot and the first report.
  public convenience init(
    context: ObjectContext, objectID: ObjectID, scheduler: DeliveryScheduler
  ) throws(MonitorError) {
    try self.init(context: context, objectID: objectID, scheduler: scheduler, follows: .saves, follower: nil)
  }

  /// Creates a monitor of one object that follows `follows`: with
  /// ``ChangeKinds/pending``, observers hear of the object's changes as the
  /// context publishes them, before any save (see
  /// `ObjectContext.processPendingChanges()`); a later save of the same
  /// values tells them nothing more. A deletion not saved yet ends the
  /// monitor's reports, as a saved one does, even if a rollback undoes it.
  ///
  /// ```swift
  /// let live = try ObjectMonitor(context: context, objectID: id, scheduler: .queue(.main), follows: .pending)
  /// ```
  ///
  /// - Throws: ``MonitorError`` as ``init(context:objectID:scheduler:)``,
  ///   and with ``MonitorError/Code/watchRefused`` for an empty `follows`.
  public convenience init(
    context: ObjectContext, objectID: ObjectID, scheduler: DeliveryScheduler, follows: ChangeKinds
  ) throws(MonitorError) {
    try self.init(context: context, objectID: objectID, scheduler: scheduler, follows: follows, follower: nil)
  }

  /// A monitor built on this one (a ``RecordObjectMonitor``): it sees the
  /// snapshot the monitor starts from, and may refuse it, before the watch
  /// is added, and hears every report from the first.
  struct Follower {
    /// Called on the context's queue with the snapshot the monitor starts
    /// from; an error refuses the monitor.
    var start: @Sendable (ObjectSnapshot) -> MonitorError?
    /// Called with every report, before the other observers.
    var signal: @Sendable (Signal) -> Void
  }

  /// Creates a monitor as ``init(context:objectID:scheduler:)`` does, with
  /// a follower whose closure is registered before the watch is added.
  init(
    context: ObjectContext, objectID: ObjectID, scheduler: DeliveryScheduler, follows: ChangeKinds,
    follower: Follower?
  ) throws(MonitorError) {
    self.objectID = objectID
    self.context = context
    self.follows = follows
    let hub = MonitorHub.hub(for: context)
    self.hub = hub
    deliveries = MonitorDeliveryQueue(scheduler: scheduler, owner: "ObjectMonitor")
    // The route reaches the monitor weakly: enqueued reports of a
    // released monitor are dropped, and the watcher never keeps it alive.
    let route = WatchRoute(queue: deliveries, body: .changes { [weak self] changes in self?.apply(changes) })
    // On the context's queue, no save can come between the snapshot and
    // the watch, and the state is set before the report of any later save
    // is enqueued (which orders it before the report reads it).
    let failure = context.performAndWait { context -> MonitorError? in
      guard let object = context.object(with: objectID) else {
        return MonitorError(
          .unknownObject,
          message:
            "ObjectMonitor: no object \(objectID) in context '\(context.name)' (never inserted, deleted, or rolled back)"
        )
      }
      let snapshot = object.snapshot()
      if let follower {
        if let refusal = follower.start(snapshot) { return refusal }
        let followerToken = observers.add(follower.signal)
        state.withLock { $0.follower = followerToken }
      }
      do {
        let token = try hub.watcher.watch(
          object.entityName, predicate: PredicateSyntax(.constant(true)),
          options: WatchOptions(objectIDs: [objectID], follows: follows), route: route)
        let sequenceNumber = context.sequenceNumber
        state.withLock { state in
          state.object = snapshot
          state.token = token
          state.firstSequenceNumber = sequenceNumber
        }
        return nil
      } catch {
        return MonitorError(.watchRefused, message: "ObjectMonitor for \(objectID): \(error)")
      }
    }
    if let failure { throw failure }
  }

  deinit {
    let token = state.withLock { state in
      state.isFinished = true
      return state.token.take()
    }
    token?.cancel()
    finishSequences()
  }

  /// The object's latest snapshot, as reported to observers; nil once a
  /// save deleted it. During a `willUpdate` call it is still the snapshot
  /// before the save, during `didUpdate` the one after.
  public var object: ObjectSnapshot? { state.withLock { $0.object } }

  /// Whether a save reported to the observers deleted the object
  /// (CoreStore's `isObjectDeleted`).
  public var isObjectDeleted: Bool { state.withLock { $0.object == nil } }

  // MARK: Observers

  /// Adds an observer, held weakly (released, it is dropped); adding one
  /// already there changes nothing. It is told about the saves reported
  /// after this call.
  ///
  /// - Complexity: O(log *n*) amortized in the observers.
  public func addObserver(_ observer: any ObjectObserver) { observers.add(observer) }

  /// Removes an observer; removing one that is not there changes nothing.
  /// A report already running may still reach it.
  ///
  /// - Complexity: O(log *n*) amortized in the observers.
  public func removeObserver(_ observer: any ObjectObserver) { observers.remove(observer) }

  /// Adds a closure observer, called with each event on the monitor's
  /// scheduler, as long as the returned token is kept and not cancelled.
  ///
  /// ```swift
  /// let token = monitor.observe { event in
  ///   if case .didUpdate(let object, let changedKeys) = event { print(object, changedKeys) }
  /// }
  /// ```
  ///
  /// - Returns: The observer's token: cancel or release it to remove the
  ///   observer.
  public func observe(_ handler: @escaping @Sendable (ObjectMonitorEvent) -> Void) -> ObserverToken {
    observers.add { signal in
      if case .event(let event) = signal { handler(event) }
    }
  }

  /// The monitor's events, from the moment each `for await` loop starts
  /// (its iterator is made): every event after that, in order, buffered
  /// for a slow consumer. A loop ends after ``ObjectMonitorEvent/didDelete(_:)``,
  /// or when the monitor is released.
  ///
  /// ```swift
  /// for await event in monitor.events { print(event) }
  /// ```
  public var events: ObjectMonitorEvents {
    MonitorSequence { [weak self] continuation in
      guard let self else {
        continuation.finish()
        return nil
      }
      return register(continuation)
    }
  }

  /// Registers an event sequence's continuation, or finishes it at once
  /// when the monitor has nothing more to report. Under the state's lock,
  /// so that the deletion (which sets `isFinished` under it, then finishes
  /// the sequences registered) finishes every sequence.
  func register(_ continuation: AsyncStream<ObjectMonitorEvent>.Continuation) -> ObserverToken? {
    state.withLock { state in
      guard !state.isFinished else {
        continuation.finish()
        return nil
      }
      return observers.add { signal in
        switch signal {
        case .event(let event): continuation.yield(event)
        case .finished: continuation.finish()
        }
      }
    }
  }

  // MARK: Flushing

  /// Blocks until the reports of the saves made before the call have been
  /// made to the observers: for deterministic tests.
  ///
  /// - Important: Not from the monitor's scheduler itself (its queue, the
  ///   queue it targets, or the main thread with
  ///   ``DeliveryScheduler/mainActor``: use `await flush()`): it would wait
  ///   forever, so it traps.
  public func flush() { deliveries.flush() }

  /// Whether observers are called on the main actor.
  var deliversOnMainActor: Bool { deliveries.runsOnMainActor }

  /// Waits without blocking until the reports of the saves made before
  /// the call have been made.
  public func flush() async { await deliveries.flush() }

  // MARK: Reporting

  /// Reports one save's changes of the object; on the monitor's queue.
  private func apply(_ changes: WatchChanges) {
    // The snapshot taken at creation already shows these saves (and any
    // pending change made before it: an update to what it shows already is
    // a no-op below).
    guard changes.cause == .pending || changes.sequenceNumber > state.withLock({ $0.firstSequenceNumber }) else {
      return
    }
    if let last = changes.deleted.first {
      let token = state.withLock { state in
        state.object = nil
        state.isFinished = true
        return state.token.take()
      }
      notify(observers.snapshot(), .didDelete(last))
      finishSequences()
      token?.cancel()
      return
    }
    let before: ObjectSnapshot?
    let after: ObjectSnapshot
    let changedKeys: [String]
    if let update = changes.updated.first ?? changes.entered.first ?? changes.exited.first {
      let held = state.withLock { $0.object }
      // Following pending changes, a save (or a change published before
      // the monitor was made) may bring what the monitor shows already.
      if follows.contains(.pending), let held, held == update.after { return }
      (before, after, changedKeys) = (held ?? update.before, update.after, update.changedKeys)
    } else if let inserted = changes.inserted.first {
      // Monitored before its insert was saved: the keys whose saved
      // values differ from those it was monitored with.
      let held = state.withLock { $0.object }
      (before, after) = (held, inserted)
      changedKeys = inserted.keys.filter { held?.property($0) != inserted.property($0) }
      guard !changedKeys.isEmpty else {
        state.withLock { $0.object = inserted }
        return
      }
    } else {
      return  // failures alone: a TRUEPREDICATE watch has none
    }
    let members = observers.snapshot()
    if let before { notify(members, .willUpdate(before)) }
    state.withLock { $0.object = after }
    notify(members, .didUpdate(after, changedKeys: changedKeys))
  }

  private func notify(_ members: [ObserverList<any ObjectObserver, Signal>.Member], _ event: ObjectMonitorEvent) {
    for member in members {
      switch member {
      case .object(let observer):
        switch event {
        case .willUpdate(let object): observer.objectMonitor(self, willUpdate: object)
        case .didUpdate(let object, let changedKeys):
          observer.objectMonitor(self, didUpdate: object, changedKeys: changedKeys)
        case .didDelete(let object): observer.objectMonitor(self, didDelete: object)
        }
      case .closure(let closure):
        closure(.event(event))
      }
    }
  }

  /// Ends every event sequence (closure observers ignore the signal).
  private func finishSequences() {
    for member in observers.snapshot() {
      if case .closure(let closure) = member { closure(.finished) }
    }
  }
}
