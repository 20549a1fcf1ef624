import ObjectGraph

/// A monitor's observers, in registration order: objects held weakly (one
/// that is released is dropped), and closures, each registered under an
/// ``ObserverToken``. Added, removed and read from any thread.
///
/// `Observer` is a class-bound protocol's existential (`any ObjectObserver`)
/// or a class: an observer is kept as a weak `AnyObject` and cast back when
/// read (a value of another type would be boxed, and its box released at
/// once). `Event` is what closure observers receive.
///
/// Notify from a ``snapshot()``, outside any lock of the caller's:
///
/// ```swift
/// for member in observers.snapshot() {
///   switch member {
///   case .object(let observer): observer.objectMonitor(monitor, didDelete: last)
///   case .closure(let handler): handler(.didDelete(last))
///   }
/// }
/// ```
final class ObserverList<Observer: Sendable, Event: Sendable>: Sendable {
  /// One observer, as a snapshot hands it out.
  enum Member: Sendable {
    case object(Observer)
    case closure(@Sendable (Event) -> Void)
  }

  private struct Entry {
    let id: UInt64
    /// The observer object (nil for a closure, or once it is released).
    weak var object: AnyObject?
    let closure: (@Sendable (Event) -> Void)?
  }

  private struct State {
    var entries: [Entry] = []
    var nextID: UInt64 = 0
  }

  private let state = LockedState(State())

  init() {}

  /// Adds an observer object, held weakly; adding one already there
  /// changes nothing.
  ///
  /// - Complexity: O(*n*) in the observers.
  func add(_ observer: Observer) {
    let object = observer as AnyObject
    state.withLock { state in
      // Dropping released observers here keeps the list from growing with
      // observers that come and go without being removed.
      state.entries.removeAll { $0.closure == nil && $0.object == nil }
      guard !state.entries.contains(where: { $0.object === object }) else { return }
      state.nextID += 1
      state.entries.append(Entry(id: state.nextID, object: object, closure: nil))
    }
  }

  /// Removes an observer object; removing one that is not there changes
  /// nothing.
  ///
  /// - Complexity: O(*n*) in the observers.
  func remove(_ observer: Observer) {
    let object = observer as AnyObject
    state.withLock { state in state.entries.removeAll { $0.object === object } }
  }

  /// Adds a closure observer, registered as long as the returned token is
  /// kept and not cancelled.
  func add(_ closure: @escaping @Sendable (Event) -> Void) -> ObserverToken {
    let id = state.withLock { state in
      state.nextID += 1
      state.entries.append(Entry(id: state.nextID, object: nil, closure: closure))
      return state.nextID
    }
    // The token holds the list, not its owner (as a watch token holds its
    // watcher's table): it never keeps the monitor alive.
    return ObserverToken { [self] in remove(id: id) }
  }

  private func remove(id: UInt64) {
    state.withLock { state in state.entries.removeAll { $0.id == id } }
  }

  /// The observers now registered and alive, in registration order; call
  /// them outside the lock. Released observers are dropped.
  ///
  /// - Complexity: O(*n*) in the observers.
  func snapshot() -> [Member] {
    state.withLock { state in
      var members: [Member] = []
      members.reserveCapacity(state.entries.count)
      var released = false
      for entry in state.entries {
        if let closure = entry.closure {
          members.append(.closure(closure))
        } else if let object = entry.object, let observer = object as? Observer {
          members.append(.object(observer))
        } else {
          released = true
        }
      }
      if released { state.entries.removeAll { $0.closure == nil && $0.object == nil } }
      return members
    }
  }

  /// Whether no observer is registered (released observer objects not
  /// yet dropped count as registered).
  var isEmpty: Bool { state.withLock { $0.entries.isEmpty } }
}
