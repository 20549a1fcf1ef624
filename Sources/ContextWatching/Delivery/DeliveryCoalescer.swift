import ObjectGraph

/// What a coalescer keeps between deliveries: the merge of the changes
/// since the last one.
protocol CoalescedChanges: Sendable {
  associatedtype Change
  associatedtype Delivery: Sendable
  init()
  /// Whether there is nothing to deliver.
  var isEmpty: Bool { get }
  /// Merges one change value's changes.
  mutating func merge(_ change: Change)
  /// What is pending, as one delivery; empty again afterwards.
  mutating func take() -> Delivery
}

/// A coalesced watch's coalescer, and what its route holds.
typealias WatchCoalescer = DeliveryCoalescer<NetChanges>

/// Delivers merged changes by a `DeliveryPolicy`: merges each change value
/// into what is pending and, when a delivery is due, hands it to its
/// consumers with `hand`, which calls `done` once per consumer when that
/// consumer has finished with it.
///
/// One thread emits at a time: the one that finds a delivery due marks the
/// coalescer as emitting, takes the pending change under the lock, hands it
/// on outside it, and looks again; a thread that finds another emitting
/// leaves its merged change to it. So deliveries leave in the order their
/// changes were merged, and user code (an `.immediate` handler that saves
/// again, reentering here) never runs under the lock.
final class DeliveryCoalescer<Pending: CoalescedChanges>: Sendable {
  typealias Hand = @Sendable (_ delivery: Pending.Delivery, _ done: @escaping @Sendable () -> Void) -> Void

  private struct State {
    var pending = Pending()
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
  /// How many times `hand` calls `done` per delivery.
  private let consumers: Int
  private let hand: Hand
  private let state = LockedState(State())

  init(policy: DeliveryPolicy, clock: any WatchClock, consumers: Int, hand: @escaping Hand) {
    self.policy = policy
    self.clock = clock
    self.consumers = consumers
    self.hand = hand
  }

  deinit {
    state.withLock { $0.alarm?.cancel() }
  }

  /// Merges one change value's changes, and delivers if a delivery is due.
  /// Called in save order.
  func add(_ change: Pending.Change) {
    let emits = state.withLock { state in
      state.pending.merge(change)
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

  /// Forgets what is pending (a list refetched delivers it another way).
  func discardPending() {
    state.withLock { state in
      state.pending = Pending()
      state.alarm?.cancel()
      state.alarm = nil
    }
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
    while true {
      let delivery = state.withLock { state in
        state.alarm?.cancel()
        state.alarm = nil
        state.lastEmission = clock.now
        state.inFlight += consumers
        return state.pending.take()
      }
      hand(delivery) { [weak self] in self?.delivered() }
      let again = state.withLock { state in
        state.isEmitting = false
        let force = state.isFlushRequested
        state.isFlushRequested = false
        return startEmitting(&state, force: force)
      }
      guard again else { return }
    }
  }

  /// One consumer finished with a delivery: a policy that waits for the
  /// consumer delivers what piled up meanwhile.
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

extension DeliveryCoalescer where Pending == NetChanges {
  /// A coalesced watch's coalescer, delivering to the watch's handler (on
  /// its queue) and to the watcher's target (through its pipeline), either
  /// or both.
  convenience init(
    policy: DeliveryPolicy, clock: any WatchClock, handler: (queue: MonitorDeliveryQueue, body: WatchHandler.Body)?,
    pipeline: DeliveryPipeline?
  ) {
    let consumers = (handler == nil ? 0 : 1) + (pipeline == nil ? 0 : 1)
    self.init(policy: policy, clock: clock, consumers: consumers) { changes, done in
      if let handler {
        let body = handler.body
        handler.queue.enqueue {
          WatchRoute.run(body, with: changes)
          done()
        }
      }
      if let pipeline {
        pipeline.deliver(ContextChanges(coalescing: changes))
        pipeline.afterDeliveries(done)
      }
    }
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
      attribution: events.indices.map {
        ObjectAttribution(objectID: events[$0].object.objectID, matches: matches[$0...$0])
      },
      failures: changes.failures, cause: changes.cause)
    coalesced = changes.coalesced
  }
}
