import Synchronization

/// The save observers of a context: added and removed from any thread,
/// called on the context's queue in registration order.
///
/// Removing one costs O(log *n*) amortized in the observers
/// (``RegistrationList``), so releasing the tokens of *n* watchers or
/// monitors costs O(*n* log *n*), whatever their order.
final class SaveObserverRegistry: Sendable {
  typealias Observer = @Sendable (ContextSave) -> Void

  private let observers = LockedState(RegistrationList<Observer>())
  /// The number of observers, changed under the lock: a load tells the
  /// context's queue whether anyone listens, without taking the lock.
  private let registered = Atomic<Int>(0)

  func add(_ observer: @escaping Observer) -> UInt64 {
    observers.withLock { list in
      registered.add(1, ordering: .relaxed)
      return list.append(observer)
    }
  }

  func remove(_ id: UInt64) {
    // The observer leaves the lock before it is released: releasing a
    // closure can release what it captured, whose deinit may take locks.
    let removed = observers.withLock { list in
      let removed = list.remove(id)
      if removed != nil { registered.subtract(1, ordering: .relaxed) }
      return removed
    }
    withExtendedLifetime(removed) {}
  }

  /// Whether some observer is registered (one being added or removed on
  /// another thread may or may not count yet).
  var isEmpty: Bool { registered.load(ordering: .relaxed) == 0 }

  /// The observers registered now, in registration order; call them
  /// outside the lock.
  func current() -> [Observer] {
    observers.withLock { $0.map { $0 } }
  }
}
