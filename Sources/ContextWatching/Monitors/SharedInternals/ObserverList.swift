import ObjectGraph

/// A monitor's observers, in registration order: objects held weakly (one
/// that is released is dropped), and closures, each registered under an
/// ``ObserverToken``. Added, removed and read from any thread.
///
/// Adding and removing an observer, and cancelling a token, cost O(log
/// *n*) amortized in the observers (``ObserverRegistry``), so releasing the
/// tokens of *n* observers costs O(*n* log *n*) in any order.
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

  /// A closure observer's box, as the registry keeps it.
  private final class Handler: Sendable {
    let call: @Sendable (Event) -> Void
    init(_ call: @escaping @Sendable (Event) -> Void) { self.call = call }
  }

  private let state = LockedState(ObserverRegistry())

  init() {}

  /// Adds an observer object, held weakly; adding one already there
  /// changes nothing.
  ///
  /// - Complexity: O(log *n*) amortized in the observers.
  func add(_ observer: Observer) {
    let object = observer as AnyObject
    state.withLock { $0.add(object: object) }
  }

  /// Removes an observer object; removing one that is not there changes
  /// nothing.
  ///
  /// - Complexity: O(log *n*) amortized in the observers.
  func remove(_ observer: Observer) {
    let object = observer as AnyObject
    state.withLock { $0.remove(object: object) }
  }

  /// Adds a closure observer, registered as long as the returned token is
  /// kept and not cancelled.
  func add(_ closure: @escaping @Sendable (Event) -> Void) -> ObserverToken {
    let handler = Handler(closure)
    let id = state.withLock { $0.add(handler: handler) }
    // The token holds the list, not its owner (as a watch token holds its
    // watcher's table): it never keeps the monitor alive.
    return ObserverToken { [self] in remove(id: id) }
  }

  /// Removes a closure observer; the closure is released after the lock,
  /// since releasing what it captured may run code that takes locks.
  ///
  /// - Complexity: O(log *n*) amortized in the observers.
  private func remove(id: UInt64) {
    let removed = state.withLock { $0.remove(id) }
    withExtendedLifetime(removed) {}
  }

  /// The observers now registered and alive, in registration order; call
  /// them outside the lock. Released observers are dropped.
  ///
  /// - Complexity: O(*n*) in the observers.
  func snapshot() -> [Member] {
    state.withLock { registry in
      let count = registry.count
      guard count > 0 else { return [] }
      var members: [Member] = []
      members.reserveCapacity(count)
      var released = false
      registry.forEach { entry in
        if let handler = entry.handler {
          // Only `add(_:)` boxes closures, always in a `Handler`.
          members.append(.closure(unsafeDowncast(handler, to: Handler.self).call))
        } else if let object = entry.object, let observer = object as? Observer {
          members.append(.object(observer))
        } else {
          released = true
        }
      }
      if released { registry.dropReleased() }
      return members
    }
  }

  /// Whether no observer is registered (released observer objects not
  /// yet dropped count as registered).
  var isEmpty: Bool { state.withLock { $0.count == 0 } }

  /// Entries removals have looked at so far (``RegistrationList``'s
  /// `removalSteps`): for tests that a removal does not scan the list.
  var removalSteps: Int { state.withLock { $0.entries.removalSteps } }
}
