import Dispatch
import Foundation
import ObjectGraph

/// Runs one monitor's (or one watch handler's) callbacks one at a time, in
/// the order they were enqueued, on a ``DeliveryScheduler``:
///
/// - `.queue(q)`: on a serial queue of its own that targets `q` (so even a
///   concurrent `q` keeps the order);
/// - `.mainActor`: on `DispatchQueue.main`;
/// - `.immediate`: inline, on the thread that enqueues. Work enqueued while
///   other work of this queue runs (from inside it, or from another thread)
///   runs right after it, on the thread running it: never nested, never
///   two at once.
///
/// The owner enqueues from the thread that processes saves (the context's
/// queue), one save at a time, so the order of the work is save order.
/// Nothing is bounded: a consumer that falls behind keeps its work queued.
///
/// ```swift
/// let deliveries = MonitorDeliveryQueue(scheduler: .queue(.main), owner: "ObjectMonitor")
/// deliveries.enqueue { print("runs on the main queue, after earlier work") }
/// deliveries.flush()   // from another thread: waits for it
/// ```
final class MonitorDeliveryQueue: Sendable {
  private enum Runner: Sendable {
    /// The private serial queue, and the queue it targets (the user's).
    case serial(DispatchQueue, target: DispatchQueue)
    case main
    case immediate(LockedState<Inline>)
  }

  /// Work waiting behind the work that runs inline now.
  private struct Inline {
    var waiting: [@Sendable () -> Void] = []
    var isRunning = false
  }

  /// One key for every queue: each serial queue stores its own number
  /// under it, so that `flush()` tells its own queue from another monitor's.
  private static let queueKey = DispatchSpecificKey<UInt64>()
  private static let nextNumber = LockedState<UInt64>(0)

  private let runner: Runner
  /// The number stored under `queueKey` on the serial queue (0 otherwise).
  private let number: UInt64
  /// The owner's name, for the messages of traps: `"ObjectMonitor"`.
  private let owner: String

  /// Creates a queue running work on `scheduler`; `owner` names its user in
  /// the messages of `flush()`'s traps.
  init(scheduler: DeliveryScheduler, owner: String) {
    self.owner = owner
    switch scheduler.kind {
    case .queue(let target):
      let number = Self.nextNumber.withLock { next in
        next += 1
        return next
      }
      let serial = DispatchQueue(label: "ContextWatcher.\(owner)", target: target)
      serial.setSpecific(key: Self.queueKey, value: number)
      self.number = number
      runner = .serial(serial, target: target)
    case .mainActor:
      number = 0
      runner = .main
    case .immediate:
      number = 0
      runner = .immediate(LockedState(Inline()))
    }
  }

  /// Whether the work runs on the main actor (the ``DeliveryScheduler/mainActor``
  /// scheduler).
  var runsOnMainActor: Bool {
    if case .main = runner { return true }
    return false
  }

  /// Runs `work` after the work enqueued before it, on the scheduler.
  func enqueue(_ work: @escaping @Sendable () -> Void) {
    switch runner {
    case .serial(let queue, _): queue.async(execute: work)
    case .main: DispatchQueue.main.async(execute: work)
    case .immediate(let inline): Self.run(work, inline)
    }
  }

  /// Runs `work` at once unless other work runs inline now; then it is
  /// left for the thread running that work, which runs everything waiting
  /// before it stops.
  private static func run(_ work: @escaping @Sendable () -> Void, _ inline: LockedState<Inline>) {
    let runsHere = inline.withLock { state in
      if state.isRunning {
        state.waiting.append(work)
        return false
      }
      state.isRunning = true
      return true
    }
    guard runsHere else { return }
    var next: (@Sendable () -> Void)? = work
    while let current = next {
      current()
      next = inline.withLock { state in
        guard !state.waiting.isEmpty else {
          state.isRunning = false
          return nil
        }
        return state.waiting.removeFirst()
      }
    }
  }

  /// Blocks until the work enqueued before the call has run: for
  /// deterministic tests. With `.immediate`, that work ran before the
  /// `enqueue` that ran it returned, and this returns at once.
  ///
  /// - Important: Not from the queue's own work, nor from the queue it
  ///   targets, nor from the main thread with `.mainActor` (use
  ///   `await flush()`): it would wait forever, so it traps.
  func flush() {
    switch runner {
    case .serial(let queue, let target):
      if DispatchQueue.getSpecific(key: Self.queueKey) == number {
        preconditionFailure("\(owner).flush() called from its own delivery queue would wait forever")
      }
      // The work runs on a queue that targets this one: waiting on it
      // would wait forever.
      dispatchPrecondition(condition: .notOnQueue(target))
      queue.sync {}
    case .main:
      if Thread.isMainThread {
        preconditionFailure(
          "\(owner).flush() called on the main thread would wait for the main actor forever; use await flush()")
      }
      DispatchQueue.main.sync {}
    case .immediate:
      return
    }
  }

  /// Waits without blocking a thread until the work enqueued before the
  /// call has run.
  func flush() async {
    let queue: DispatchQueue
    switch runner {
    case .serial(let serial, _): queue = serial
    case .main: queue = .main
    case .immediate: return
    }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      queue.async { continuation.resume() }
    }
  }
}
