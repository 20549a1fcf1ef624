import ObjectGraph

/// A monitor's observers, in registration order: objects held weakly (one
/// that is released is dropped), and closures, each registered under an
/// ``ObserverToken``. Added, removed and read from any thread.
///
/// Adding and removing an observer, and cancelling a token, cost O(log
/// *n*) amortized in the observers (a `RegistrationList`, and a map from
/// observer object to its registration), so releasing the tokens of *n*
/// observers costs O(*n* log *n*) in any order.
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
    /// The observer object (nil for a closure, or once it is released).
    weak var object: AnyObject?
    /// The observer object's identity, kept after it is released so that
    /// its entry in `State.byObject` can be found and dropped; nil for a
    /// closure.
    let key: ObjectIdentifier?
    let closure: (@Sendable (Event) -> Void)?

    /// Whether the entry is an observer object that was released.
    var isReleased: Bool { closure == nil && object == nil }
  }

  private struct State {
    var entries = RegistrationList<Entry>()
    /// The registration of each observer object. An identity whose object
    /// was released may be another object's later: an entry counts as
    /// that object's only while its weak reference is the object.
    var byObject: [ObjectIdentifier: UInt64] = [:]
    /// The entry count at which `add(_:)` drops released observer objects:
    /// twice the count after the last drop, so that dropping costs O(1)
    /// amortized per addition.
    var pruneAt = 16

    /// Drops the entries of released observer objects.
    mutating func dropReleased() {
      var released: [ObjectIdentifier] = []
      entries.removeAll { entry in
        guard entry.isReleased else { return false }
        if let key = entry.key { released.append(key) }
        return true
      }
      for key in released {
        // The identity may be a live object's by now, registered since.
        if let id = byObject[key], entries[id] == nil { byObject[key] = nil }
      }
    }
  }

  private let state = LockedState(State())

  init() {}

  /// Adds an observer object, held weakly; adding one already there
  /// changes nothing.
  ///
  /// - Complexity: O(log *n*) amortized in the observers.
  func add(_ observer: Observer) {
    let object = observer as AnyObject
    let key = ObjectIdentifier(object)
    state.withLock { state in
      if let id = state.byObject[key] {
        if state.entries[id]?.object === object { return }
        // A released object's entry under a reused identity.
        state.entries.remove(id)
      }
      // Dropping released observers, once the list has doubled since the
      // last drop, keeps it from growing with observers that come and go
      // without being removed.
      if state.entries.count >= state.pruneAt {
        state.dropReleased()
        state.pruneAt = max(16, 2 * state.entries.count)
      }
      state.byObject[key] = state.entries.append(Entry(object: object, key: key, closure: nil))
    }
  }

  /// Removes an observer object; removing one that is not there changes
  /// nothing.
  ///
  /// - Complexity: O(log *n*) amortized in the observers.
  func remove(_ observer: Observer) {
    let object = observer as AnyObject
    let key = ObjectIdentifier(object)
    state.withLock { state in
      guard let id = state.byObject[key], state.entries[id]?.object === object else { return }
      state.entries.remove(id)
      state.byObject[key] = nil
    }
  }

  /// Adds a closure observer, registered as long as the returned token is
  /// kept and not cancelled.
  func add(_ closure: @escaping @Sendable (Event) -> Void) -> ObserverToken {
    let id = state.withLock { state in
      state.entries.append(Entry(object: nil, key: nil, closure: closure))
    }
    // The token holds the list, not its owner (as a watch token holds its
    // watcher's table): it never keeps the monitor alive.
    return ObserverToken { [self] in remove(id: id) }
  }

  /// Removes a closure observer; the closure is released after the lock,
  /// since releasing what it captured may run code that takes locks.
  ///
  /// - Complexity: O(log *n*) amortized in the observers.
  private func remove(id: UInt64) {
    let removed = state.withLock { state in state.entries.remove(id) }
    withExtendedLifetime(removed) {}
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
      state.entries.forEach { entry in
        if let closure = entry.closure {
          members.append(.closure(closure))
        } else if let object = entry.object, let observer = object as? Observer {
          members.append(.object(observer))
        } else {
          released = true
        }
      }
      if released { state.dropReleased() }
      return members
    }
  }

  /// Whether no observer is registered (released observer objects not
  /// yet dropped count as registered).
  var isEmpty: Bool { state.withLock { $0.entries.isEmpty } }

  /// Entries removals have looked at so far (``RegistrationList``'s
  /// `removalSteps`): for tests that a removal does not scan the list.
  var removalSteps: Int { state.withLock { $0.entries.removalSteps } }
}
