import ObjectGraph

/// Delivers one coalesced watch's changes by its `DeliveryPolicy`: merges
/// what the watch sees into its net change (`NetChanges`) and hands that
/// to the watch's handler, on its queue, and to the watcher's target,
/// through its pipeline, when a delivery is due.
///
/// One thread emits at a time: the one that finds a delivery due marks the
/// coalescer as emitting, takes the pending change under the lock, hands it
/// on outside it, and looks again; a thread that finds another emitting
/// leaves its merged change to it. So deliveries leave in the order their
/// changes were merged, and user code (an `.immediate` handler that saves
/// again, reentering here) never runs under the lock.
final class WatchCoalescer: Sendable {
  private struct State {
    var pending = NetChanges()
    /// Deliveries handed on whose consumers have not finished with them.
    var inFlight = 0
    var isEmitting = false
    /// Set by `flush()` while another thread emits: that thread then
    /// delivers what is pending whatever the policy says.
    var isFlushRequested = false
    /// When the last delivery left, on the clock.
    var lastEmission: Double?
    /// The alarm set for the end of the interval, with a change pending.
    var alarm: WatchAlarm?
  }

  private let policy: DeliveryPolicy
  private let clock: any WatchClock
  /// The watch's own handler and its queue; nil for a watch without one.
  private let handler: (queue: MonitorDeliveryQueue, body: WatchHandler.Body)?
  /// The watcher's pipeline, when its target receives deliveries.
  private let pipeline: DeliveryPipeline?
  private let state = LockedState(State())

  init(
    policy: DeliveryPolicy, clock: any WatchClock, handler: (queue: MonitorDeliveryQueue, body: WatchHandler.Body)?,
    pipeline: DeliveryPipeline?
  ) {
    self.policy = policy
    self.clock = clock
    self.handler = handler
    self.pipeline = pipeline
  }

  deinit {
    state.withLock { $0.alarm?.cancel() }
  }

  /// The queue of the watch's handler, if it has one.
  var queue: MonitorDeliveryQueue? { handler?.queue }

  /// Merges one change value's changes of the watch, and delivers if a
  /// delivery is due. Called in save order.
  func add(_ changes: WatchChanges) {
    let emits = state.withLock { state in
      state.pending.merge(changes)
      return startEmitting(&state, force: false)
    }
    if emits { emit() }
  }

  /// Delivers what is pending now, whatever the policy.
  func flush() {
    let emits = state.withLock { state in
      if state.isEmitting {
        state.isFlushRequested = true
        return false
      }
      return startEmitting(&state, force: true)
    }
    if emits { emit() }
  }

  /// Whether the calling thread is to emit now: something is pending, no
  /// other thread emits, and the policy lets it (or `force`). When the
  /// interval since the last delivery has not passed, sets the alarm for
  /// its end instead.
  private func startEmitting(_ state: inout State, force: Bool) -> Bool {
    guard !state.isEmitting, !state.pending.isEmpty else { return false }
    if !force {
      switch policy {
      case .everySave:
        break
      case .whenReady:
        guard state.inFlight == 0 else { return false }
      case .coalesced:
        if let last = state.lastEmission, let interval = policy.seconds, clock.now < last + interval {
          if state.alarm == nil {
            state.alarm = clock.schedule(at: last + interval) { [weak self] in self?.alarmRang() }
          }
          return false
        }
      }
    }
    state.isEmitting = true
    return true
  }

  /// Hands on the pending change, and again while another is due by the
  /// time it is done. Called by the thread that `startEmitting` chose.
  private func emit() {
    let consumers = (handler == nil ? 0 : 1) + (pipeline == nil ? 0 : 1)
    while true {
      let changes = state.withLock { state in
        state.alarm?.cancel()
        state.alarm = nil
        state.lastEmission = clock.now
        state.inFlight += consumers
        return state.pending.take()
      }
      hand(changes)
      let again = state.withLock { state in
        state.isEmitting = false
        let force = state.isFlushRequested
        state.isFlushRequested = false
        return startEmitting(&state, force: force)
      }
      guard again else { return }
    }
  }

  /// Gives one delivery to the handler and the watcher's target; each
  /// tells `delivered()` when its consumer is done with it.
  private func hand(_ changes: WatchChanges) {
    if let handler {
      let body = handler.body
      handler.queue.enqueue {
        WatchRoute.run(body, with: changes)
        self.delivered()
      }
    }
    if let pipeline {
      pipeline.deliver(ContextChanges(coalescing: changes))
      pipeline.afterDeliveries { self.delivered() }
    }
  }

  /// One consumer finished with a delivery: a watch delivering when ready
  /// delivers what piled up meanwhile.
  private func delivered() {
    let emits = state.withLock { state in
      state.inFlight -= 1
      return startEmitting(&state, force: false)
    }
    if emits { emit() }
  }

  /// The interval passed: delivers what is pending.
  private func alarmRang() {
    let emits = state.withLock { state in
      state.alarm = nil
      return startEmitting(&state, force: false)
    }
    if emits { emit() }
  }
}

extension ContextChanges {
  /// The delivery of one coalesced watch's changes, attributed to it.
  init(coalescing changes: WatchChanges) {
    let events = changes.objectEvents
    let matches = events.map { WatchMatch(watch: changes.watch, event: $0.event) }
    self.init(
      sequenceNumber: changes.sequenceNumber, author: changes.author, inserted: changes.inserted,
      updated: changes.updated, entered: changes.entered, exited: changes.exited, deleted: changes.deleted,
      attribution: events.indices.map { ObjectAttribution(objectID: events[$0].object.objectID, matches: matches[$0...$0]) },
      failures: changes.failures, cause: changes.cause)
    coalesced = changes.coalesced
  }
}
