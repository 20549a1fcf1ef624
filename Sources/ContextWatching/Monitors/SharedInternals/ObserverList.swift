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

  /// The registry, and the snapshot of a registry that holds closures
  /// alone (what record monitors, models and servers register): it stays
  /// right until an observer is added or removed, so that a delivery to
  /// them makes nothing. A registry with an observer object has none: its
  /// objects are held weakly, and a snapshot would keep them.
  private struct Registered {
    var registry = ObserverRegistry()
    var closuresSnapshot: [Member]?

    /// Changes the registry, and drops the snapshot. The snapshot's
    /// closures are released in the lock, but never last: the registry,
    /// or what `change` returns from it, still holds each.
    mutating func change<Result>(_ change: (inout ObserverRegistry) -> Result) -> Result {
      closuresSnapshot = nil
      return change(&registry)
    }
  }

  private let state = LockedState(Registered())

  init() {}

  /// Adds an observer object, held weakly; adding one already there
  /// changes nothing.
  ///
  /// - Complexity: O(log *n*) amortized in the observers.
  func add(_ observer: Observer) {
    let object = observer as AnyObject
    state.withLock { $0.change { $0.add(object: object) } }
  }

  /// Removes an observer object; removing one that is not there changes
  /// nothing.
  ///
  /// - Complexity: O(log *n*) amortized in the observers.
  func remove(_ observer: Observer) {
    let object = observer as AnyObject
    state.withLock { $0.change { $0.remove(object: object) } }
  }

  /// Adds a closure observer, registered as long as the returned token is
  /// kept and not cancelled.
  func add(_ closure: @escaping @Sendable (Event) -> Void) -> ObserverToken {
    let handler = Handler(closure)
    let id = state.withLock { $0.change { $0.add(handler: handler) } }
    // The token holds the list, not its owner (as a watch token holds its
    // watcher's table): it never keeps the monitor alive.
    return ObserverToken { [self] in remove(id: id) }
  }

  /// Removes a closure observer; the closure is released after the lock,
  /// since releasing what it captured may run code that takes locks.
  ///
  /// - Complexity: O(log *n*) amortized in the observers.
  private func remove(id: UInt64) {
    let removed = state.withLock { $0.change { $0.remove(id) } }
    withExtendedLifetime(removed) {}
  }

  /// The observers now registered and alive, in registration order; call
  /// them outside the lock. Released observers are dropped.
  ///
  /// - Complexity: O(*n*) in the observers; O(1) for closures alone, from
  ///   the second snapshot after a change on.
  func snapshot() -> [Member] {
    state.withLock { state in
      if let closuresSnapshot = state.closuresSnapshot { return closuresSnapshot }
      let count = state.registry.count
      guard count > 0 else { return [] }
      var members: [Member] = []
      members.reserveCapacity(count)
      var released = false
      var hasObjects = false
      state.registry.forEach { entry in
        if let handler = entry.handler {
          // Only `add(_:)` boxes closures, always in a `Handler`.
          members.append(.closure(unsafeDowncast(handler, to: Handler.self).call))
        } else if let object = entry.object, let observer = object as? Observer {
          members.append(.object(observer))
          hasObjects = true
        } else {
          released = true
        }
      }
      if released { state.registry.dropReleased() }
      if !hasObjects && !released { state.closuresSnapshot = members }
      return members
    }
  }

  /// Whether no observer is registered (released observer objects not
  /// yet dropped count as registered).
  var isEmpty: Bool { state.withLock { $0.registry.count == 0 } }

  /// Entries removals have looked at so far (``RegistrationList``'s
  /// `removalSteps`): for tests that a removal does not scan the list.
  var removalSteps: Int { state.withLock { $0.registry.entries.removalSteps } }
}
