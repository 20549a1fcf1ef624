import Foundation
import ObjectGraph
import PredicateDSL
import Synchronization

extension ListMonitor {
  /// Adds an observer, held weakly: ``ListObserver`` for will/did change,
  /// ``ListObjectObserver`` for each object, ``ListSectionObserver`` for
  /// sections too. Adding one twice changes nothing.
  public func addObserver(_ observer: any ListObserver) { observers.add(observer) }

  /// Removes an observer.
  public func removeObserver(_ observer: any ListObserver) { observers.remove(observer) }

  /// Calls `handler` on the monitor's scheduler once per change of the list,
  /// with the changes and the new content, as long as the returned token
  /// lives.
  public func observe(_ handler: @escaping @Sendable (ListMonitorUpdate) -> Void) -> ObserverToken {
    observers.add { signal in
      if case .update(let update) = signal { handler(update) }
    }
  }

  /// The changes of the list, one element per change with the new
  /// content, from the moment each `for await` loop starts (its iterator is
  /// made); a loop ends when the monitor is released.
  ///
  /// ```swift
  /// for await update in people.updates { print(update.changes.inserted.count, update.content.count) }
  /// ```
  ///
  /// Each loop buffers every update its consumer has not taken yet: a
  /// batch update applies only after the ones before it, so none is
  /// dropped. A consumer that wants only the latest list reads the last
  /// buffered update's ``ListMonitorUpdate/content``.
  public var updates: ListMonitorUpdates {
    MonitorSequence { [weak self] continuation in
      guard let self else {
        continuation.finish()
        return nil
      }
      return register(continuation)
    }
  }

  /// Registers an update sequence's continuation; it is finished when the
  /// monitor goes.
  func register(_ continuation: AsyncStream<ListMonitorUpdate>.Continuation) -> ObserverToken {
    hasHadSequences.store(true, ordering: .relaxed)
    return observers.add { signal in
      switch signal {
      case .update(let update): continuation.yield(update)
      case .finished: continuation.finish()
      }
    }
  }

  /// Whether observers are called on the main actor.
  var deliversOnMainActor: Bool { delivery.runsOnMainActor }

  /// Delivers what a coalescing monitor holds pending, then blocks until
  /// every change of the saves made before the call has been delivered:
  /// for deterministic tests.
  ///
  /// - Important: Not from the monitor's scheduler's queue, nor from the
  ///   main thread with the ``DeliveryScheduler/mainActor`` scheduler: it
  ///   would wait forever, so it traps.
  public func flush() {
    flushCoalescer()
    delivery.flush()
  }

  /// Hands on what a coalescing monitor holds pending: on the context's
  /// queue, where its other emissions run, so that none is under way
  /// meanwhile.
  private func flushCoalescer() {
    guard let coalescer = coalescer?.withLock({ $0 }) else { return }
    context.performAndWait { _ in coalescer.flush() }
  }

  /// Delivers what a coalescing monitor holds pending, then waits without
  /// blocking until every change of the saves made before the call has
  /// been delivered.
  public func flush() async {
    flushCoalescer()
    await delivery.flush()
  }
}
