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
/// consumers with `hand`, which calls `done` once per paced consumer when
/// that consumer has finished with it.
///
/// One thread emits at a time: the one that finds a delivery due takes it
/// in the same critical section, marks the coalescer as emitting, hands the
/// delivery on outside the lock, and looks again; a thread that finds
/// another emitting leaves its merged change to it. So deliveries leave in
/// the order their changes were merged, and user code (an `.immediate`
/// handler that saves again, reentering here) never runs under the lock.
/// Emissions that an alarm or a finished consumer starts run through
/// `resume` (the watcher's context's queue, so that they fall between
/// saves as the saves' own deliveries do).
final class DeliveryCoalescer<Pending: CoalescedChanges>: Sendable {
  typealias Hand = @Sendable (_ delivery: Pending.Delivery, _ done: @escaping @Sendable () -> Void) -> Void
  typealias Resume = @Sendable (_ work: @escaping @Sendable () -> Void) -> Void

  private struct State {
    var pending = Pending()
    /// Deliveries handed on whose paced consumers have not finished with
    /// them.
    var inFlight = 0
    var isEmitting = false
    /// Set by `flush()` while another thread emits: that thread then
    /// delivers what is pending whatever the policy says.
    var isFlushRequested = false
    /// When the last delivery left, on the clock.
    var lastEmission: Double?
    /// The alarm set for the end of the interval, with a change pending,
    /// and its number (an alarm that rings late clears only itself).
    var alarm: WatchAlarm?
    var alarmNumber = 0
  }

  private let policy: DeliveryPolicy
  private let clock: any WatchClock
  /// How many times `hand` calls `done` per delivery.
  private let pacedConsumers: Int
  private let hand: Hand
  private let resume: Resume
  private let state = LockedState(State())

  init(
    policy: DeliveryPolicy, clock: any WatchClock, pacedConsumers: Int, resume: @escaping Resume,
    hand: @escaping Hand
  ) {
    self.policy = policy
    self.clock = clock
    self.pacedConsumers = pacedConsumers
    self.resume = resume
    self.hand = hand
  }

  deinit {
    state.withLock { $0.alarm?.cancel() }
  }

  /// Merges one change value's changes, and delivers if a delivery is due.
  /// Called in save order.
  func add(_ change: Pending.Change) {
    let delivery = state.withLock { state in
      state.pending.merge(change)
      return takeIfDue(&state, force: false)
    }
    if let delivery { emit(delivery) }
  }

  /// Delivers what is pending now, whatever the policy.
  func flush() {
    let delivery = state.withLock { state in
      if state.isEmitting {
        state.isFlushRequested = true
        return Pending.Delivery?.none
      }
      return takeIfDue(&state, force: true)
    }
    if let delivery { emit(delivery) }
  }

  /// Forgets what is pending (a list refetched delivers it another way).
  func discardPending() {
    state.withLock { state in
      state.pending = Pending()
      state.alarm?.cancel()
      state.alarm = nil
    }
  }

  /// The delivery the calling thread is to hand on now, taken from what is
  /// pending: when something is, no other thread emits, and the policy lets
  /// it (or `force`). When the interval since the last delivery has not
  /// passed, sets the alarm for its end instead. Marks the coalescer as
  /// emitting when it returns a delivery.
  private func takeIfDue(_ state: inout State, force: Bool) -> Pending.Delivery? {
    guard !state.isEmitting, !state.pending.isEmpty else { return nil }
    if !force {
      switch policy {
      case .everySave:
        break
      case .whenReady:
        guard state.inFlight == 0 else { return nil }
      case .coalesced:
        if let last = state.lastEmission, let interval = policy.seconds, clock.now < last + interval {
          if state.alarm == nil {
            state.alarmNumber += 1
            let number = state.alarmNumber
            state.alarm = clock.schedule(at: last + interval) { [weak self] in self?.alarmRang(number) }
          }
          return nil
        }
      }
    }
    state.isEmitting = true
    state.alarm?.cancel()
    state.alarm = nil
    state.lastEmission = clock.now
    state.inFlight += pacedConsumers
    return state.pending.take()
  }

  /// Hands on `delivery`, and the next one while another is due by the
  /// time it is done. Called by the thread that `takeIfDue` chose.
  private func emit(_ delivery: Pending.Delivery) {
    var next = Optional(delivery)
    while let delivery = next.take() {
      hand(delivery) { [weak self] in self?.delivered() }
      next = state.withLock { state in
        state.isEmitting = false
        let force = state.isFlushRequested
        state.isFlushRequested = false
        return takeIfDue(&state, force: force)
      }
    }
  }

  /// Delivers what is due, through `resume`.
  private func resumeEmitting() {
    resume { [weak self] in
      guard let self, let delivery = state.withLock({ takeIfDue(&$0, force: false) }) else { return }
      emit(delivery)
    }
  }

  /// One paced consumer finished with a delivery: a policy that waits for
  /// the consumer delivers what piled up meanwhile.
  private func delivered() {
    let due = state.withLock { state in
      state.inFlight -= 1
      return state.inFlight == 0 && !state.pending.isEmpty && !state.isEmitting
    }
    if due { resumeEmitting() }
  }

  /// The interval passed: delivers what is pending.
  private func alarmRang(_ number: Int) {
    let rings = state.withLock { state in
      guard state.alarmNumber == number, state.alarm != nil else { return false }
      state.alarm = nil
      return true
    }
    if rings { resumeEmitting() }
  }
}

extension DeliveryCoalescer where Pending == NetChanges {
  /// A coalesced watch's coalescer, delivering to the watch's handler (on
  /// its queue) and to the watcher's target (through its pipeline), either
  /// or both. A watch delivered when ready waits for its handler, or, with
  /// none, for the target to take the delivery.
  convenience init(
    policy: DeliveryPolicy, clock: any WatchClock, handler: (queue: MonitorDeliveryQueue, body: WatchHandler.Body)?,
    pipeline: DeliveryPipeline?, resume: @escaping Resume
  ) {
    // Only one consumer paces the watch: a target that nobody reads (an
    // async sequence no loop iterates) must not hold the handler back.
    let pacesPipeline = handler == nil
    self.init(policy: policy, clock: clock, pacedConsumers: handler != nil || pipeline != nil ? 1 : 0, resume: resume) {
      changes, done in
      if let handler {
        let body = handler.body
        handler.queue.enqueue {
          WatchRoute.run(body, with: changes)
          done()
        }
      }
      if let pipeline {
        pipeline.deliver(ContextChanges(coalescing: changes))
        if pacesPipeline { pipeline.afterDeliveries(done) }
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
