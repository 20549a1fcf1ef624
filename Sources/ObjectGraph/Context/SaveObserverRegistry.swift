/// The save observers of a context: added and removed from any thread,
/// called on the context's queue.
final class SaveObserverRegistry: Sendable {
  typealias Observer = @Sendable (ContextSave) -> Void

  private struct State {
    var nextID: UInt64 = 0
    /// By registration order: identifiers only increase.
    var observers: [(id: UInt64, observer: Observer)] = []
  }

  private let state = LockedState(State())

  func add(_ observer: @escaping Observer) -> UInt64 {
    state.withLock { state in
      state.nextID += 1
      state.observers.append((state.nextID, observer))
      return state.nextID
    }
  }

  func remove(_ id: UInt64) {
    state.withLock { state in state.observers.removeAll { $0.id == id } }
  }

  /// The observers now registered; call them outside the lock.
  func current() -> [Observer] {
    state.withLock { state in state.observers.map(\.observer) }
  }
}
