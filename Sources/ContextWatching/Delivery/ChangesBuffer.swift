import Dispatch
import Foundation
import ObjectGraph

/// The buffer behind ``ContextChangesSequence``: deliveries wait here for the
/// consumer, at most the watcher's buffer limit of them.
final class ChangesBuffer: Sendable {
  private struct State {
    var items: [ContextChanges] = []
    var head = 0
    /// Consumers waiting, first come first served.
    var waiters: [(id: UInt64, continuation: CheckedContinuation<ContextChanges?, Never>)] = []
    var nextWaiter: UInt64 = 0
    var isFinished = false
  }

  private struct Owner {
    weak var pipeline: DeliveryPipeline?
  }

  private let state = LockedState(State())
  /// Weak: the pipeline owns the buffer.
  private let owner = LockedState(Owner())

  private var pipeline: DeliveryPipeline? { owner.withLock { $0.pipeline } }

  func setPipeline(_ pipeline: DeliveryPipeline) { owner.withLock { $0.pipeline = pipeline } }

  /// Called under the pipeline's lock, so it never calls back into the
  /// pipeline. Returns true when a waiting consumer took the delivery at
  /// once.
  func push(_ changes: ContextChanges) -> Bool {
    let waiter: CheckedContinuation<ContextChanges?, Never>? = state.withLock { state in
      if !state.waiters.isEmpty { return state.waiters.removeFirst().continuation }
      state.items.append(changes)
      return nil
    }
    waiter?.resume(returning: changes)
    return waiter != nil
  }

  /// Ends the sequence: waiting consumers get nil, and so do later calls
  /// once the buffered deliveries are taken.
  func finish() {
    let waiters = state.withLock { state in
      state.isFinished = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.continuation.resume(returning: nil) }
  }

  func next() async -> ContextChanges? {
    let id = state.withLock { state in
      state.nextWaiter += 1
      return state.nextWaiter
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<ContextChanges?, Never>) in
        let taken: ContextChanges?? = state.withLock { state in
          if state.head < state.items.count {
            let item = state.items[state.head]
            state.head += 1
            if state.head > 64 && state.head * 2 > state.items.count {
              state.items.removeFirst(state.head)
              state.head = 0
            }
            return .some(item)
          }
          if state.isFinished || Task.isCancelled { return .some(nil) }
          state.waiters.append((id, continuation))
          return nil
        }
        if let taken {
          continuation.resume(returning: taken)
          if taken != nil { pipeline?.finished() }
        }
      }
    } onCancel: {
      let waiter = state.withLock { state in
        state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0).continuation }
      }
      waiter?.resume(returning: nil)
    }
  }
}
