import Dispatch
import Foundation
import ObjectGraph

/// Hands a watcher's deliveries to its target in save order, one at a time,
/// without ever making the saver wait (except for ``DeliveryScheduler/immediate``),
/// with a bounded number of deliveries in flight and `flush()`.
///
/// Every decision (deliver, drop, signal an overflow) is taken under one
/// lock, and deliveries are enqueued on a serial queue (or the stream's
/// buffer) inside it, so their order is the order of the decisions. User code
/// runs outside the lock.
final class DeliveryPipeline: Sendable {
  private struct State {
    /// Deliveries enqueued, and deliveries that have run (or, for a
    /// stream, that the consumer took).
    var scheduled = 0
    var completed = 0
    /// Saves whose deliveries were dropped while the buffer was full.
    var missed: ClosedRange<Int>?
    var waiters: [(target: Int, resume: @Sendable () -> Void)] = []
    weak var watcher: ContextWatcher?
  }

  private let state = LockedState(State())
  private let target: DeliveryTarget.Kind
  private let scheduler: DeliveryScheduler.Kind?
  /// The serial queue deliveries run on, for the queue scheduler.
  private let serialQueue: DispatchQueue?
  private let queueKey = DispatchSpecificKey<Bool>()
  let stream: ChangesBuffer?
  let limit: Int

  init(target: DeliveryTarget, limit: Int) {
    self.target = target.kind
    self.limit = max(1, limit)
    switch target.kind {
    case .delegate(_, let chosen), .handler(let chosen, _): scheduler = chosen.kind
    case .mainActorHandler: scheduler = .mainActor
    // Nothing is delivered: flush() finds nothing to wait for.
    case .stream, .watchHandlersOnly: scheduler = nil
    }
    if case .queue(let queue)? = scheduler {
      let serial = DispatchQueue(label: "ContextWatcher.delivery", target: queue)
      serial.setSpecific(key: queueKey, value: true)
      serialQueue = serial
    } else {
      serialQueue = nil
    }
    stream = if case .stream = target.kind { ChangesBuffer() } else { nil }
    stream?.setPipeline(self)
  }

  /// The watcher whose deliveries these are (held weakly).
  func attach(_ watcher: ContextWatcher) { state.withLock { $0.watcher = watcher } }

  /// Enqueues a delivery, or drops it when `limit` deliveries are waiting;
  /// the dropped saves are reported by an overflow signal as soon as there
  /// is room for one.
  func deliver(_ changes: consuming ContextChanges) {
    if case .immediate? = scheduler {
      // Runs on the saving thread: nothing waits, nothing piles up.
      let watcher = state.withLock { state in
        state.scheduled += 1
        return state.watcher
      }
      if let watcher { run(changes, watcher: watcher) }
      finished()
      return
    }
    // Moved into its box here, not copied into the block that runs it.
    // A coalesced watch's delivery covers several saves, and comes after
    // later saves' deliveries: what is missed is the union of the ranges.
    let saves = changes.coalesced ?? changes.sequenceNumber...changes.sequenceNumber
    let delivery = PendingDelivery(changes)
    let handedOff: Int = state.withLock { state in
      let waiting = state.scheduled - state.completed
      guard let missed = state.missed else {
        if waiting < limit { return enqueue(delivery, &state) }
        state.missed = saves
        return 0
      }
      let both = min(missed.lowerBound, saves.lowerBound)...max(missed.upperBound, saves.upperBound)
      guard waiting < limit else {
        state.missed = both
        return 0
      }
      state.missed = nil
      if waiting + 1 < limit {
        return enqueue(Self.overflow(missed), &state) + enqueue(delivery, &state)
      }
      return enqueue(Self.overflow(both), &state)
    }
    for _ in 0..<handedOff { finished() }
  }

  private static func overflow(_ missed: ClosedRange<Int>) -> PendingDelivery {
    PendingDelivery(ContextChanges(sequenceNumber: missed.upperBound, author: nil, missedSaves: missed))
  }

  /// Enqueues one delivery under the lock. Returns 1 when a stream consumer
  /// was waiting and took it at once (the caller counts it as run, outside
  /// the lock), else 0.
  private func enqueue(_ delivery: PendingDelivery, _ state: inout State) -> Int {
    state.scheduled += 1
    switch scheduler {
    case .queue?:
      serialQueue!.async { [weak watcher = state.watcher] in
        self.run(delivery, watcher: watcher)
        self.finished()
      }
      return 0
    case .mainActor?:
      DispatchQueue.main.async { [weak watcher = state.watcher] in
        self.run(delivery, watcher: watcher)
        self.finished()
      }
      return 0
    case .immediate?:
      preconditionFailure("immediate deliveries are not enqueued")
    case nil:
      return stream!.push(delivery.take()) ? 1 : 0
    }
  }

  /// Runs an enqueued delivery and frees it before the caller counts it as
  /// run: when `flush()` returns, no delivery of an earlier save is left to
  /// free (on the delivery thread, concurrently with the caller's next save).
  private func run(_ delivery: PendingDelivery, watcher: ContextWatcher?) {
    let changes = delivery.take()
    if let watcher { run(changes, watcher: watcher) }
  }

  private func run(_ changes: ContextChanges, watcher: ContextWatcher) {
    switch target {
    case .delegate(let delegate, _):
      delegate.value?.contextWatcher(watcher, didObserve: changes)
    case .handler(_, let handler):
      handler(watcher, changes)
    case .mainActorHandler(let handler):
      MainActor.assumeIsolated { handler(changes) }
    case .stream, .watchHandlersOnly:
      break
    }
  }

  /// Marks one delivery as run (or taken by the stream's consumer), lets a
  /// pending overflow signal through, and wakes `flush()` callers.
  func finished() {
    var handedOff = 0
    let ready: [@Sendable () -> Void] = state.withLock { state in
      state.completed += 1
      if let missed = state.missed, state.scheduled - state.completed < limit {
        state.missed = nil
        handedOff = enqueue(Self.overflow(missed), &state)
      }
      let ready = state.waiters.filter { $0.target <= state.completed }.map(\.resume)
      state.waiters.removeAll { $0.target <= state.completed }
      return ready
    }
    for resume in ready { resume() }
    if handedOff > 0 { finished() }
  }

  /// Waits until every delivery enqueued before the call has run.
  func flush() {
    // Immediate deliveries have run by the time their save returned; inside
    // one, waiting for it would wait forever.
    if case .immediate? = scheduler { return }
    if serialQueue != nil && DispatchQueue.getSpecific(key: queueKey) != nil {
      preconditionFailure("ContextWatcher.flush() called from its own delivery queue would wait forever")
    }
    if case .queue(let queue)? = scheduler {
      // Deliveries run on a queue that targets this one: waiting on it would
      // wait forever.
      dispatchPrecondition(condition: .notOnQueue(queue))
    }
    if case .mainActor? = scheduler, Thread.isMainThread {
      preconditionFailure(
        "ContextWatcher.flush() called on the main thread would wait for the main actor forever; use await flush()")
    }
    let semaphore = DispatchSemaphore(value: 0)
    guard register({ semaphore.signal() }) else { return }
    semaphore.wait()
  }

  /// Waits, without blocking a thread, until every delivery enqueued before
  /// the call has run.
  func flush() async {
    if case .immediate? = scheduler { return }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      if !register({ continuation.resume() }) { continuation.resume() }
    }
  }

  /// Runs `action` once the deliveries enqueued so far have run (at once,
  /// on the calling thread, when they have).
  func afterDeliveries(_ action: @escaping @Sendable () -> Void) {
    if !register(action) { action() }
  }

  /// Registers `resume` to run when the deliveries enqueued so far have
  /// run; false when they already have.
  private func register(_ resume: @escaping @Sendable () -> Void) -> Bool {
    state.withLock { state in
      // Dropped deliveries are owed an overflow signal, enqueued as soon as
      // there is room: wait for it too.
      let target = state.scheduled + (state.missed == nil ? 0 : 1)
      guard state.completed < target else { return false }
      state.waiters.append((target, resume))
      return true
    }
  }

  /// Deliveries enqueued and not yet run.
  var backlog: Int { state.withLock { $0.scheduled - $0.completed } }
}

/// One enqueued delivery, which the block that runs it takes out (so that
/// it is freed when the block is done with it, not when the block is).
///
/// `@unchecked Sendable`: `changes` is written once, by the delivering
/// thread before the box is handed on (to a block, whose dispatch orders the
/// write before it, or taken at once under the pipeline's lock for a
/// stream), and taken once.
private final class PendingDelivery: @unchecked Sendable {
  private var changes: ContextChanges?

  init(_ changes: consuming ContextChanges) { self.changes = changes }

  func take() -> ContextChanges { changes.take().unsafelyUnwrapped }
}
