/// The save observers of a context: added and removed from any thread,
/// called on the context's queue in registration order.
///
/// Removing one costs O(log *n*) amortized in the observers
/// (``RegistrationList``), so releasing the tokens of *n* watchers or
/// monitors costs O(*n* log *n*), whatever their order.
final class SaveObserverRegistry: Sendable {
  typealias Observer = @Sendable (ContextSave) -> Void

  private let observers = LockedState(RegistrationList<Observer>())

  func add(_ observer: @escaping Observer) -> UInt64 {
    observers.withLock { $0.append(observer) }
  }

  func remove(_ id: UInt64) {
    // The observer leaves the lock before it is released: releasing a
    // closure can release what it captured, whose deinit may take locks.
    let removed = observers.withLock { $0.remove(id) }
    withExtendedLifetime(removed) {}
  }

  /// The observers registered now, in registration order; call them
  /// outside the lock.
  func current() -> [Observer] {
    observers.withLock { $0.map { $0 } }
  }
}
