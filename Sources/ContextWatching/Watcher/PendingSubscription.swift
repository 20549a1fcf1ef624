import ObjectGraph

/// A watcher's subscription to its context's pending changes: made when
/// the first watch that follows them is added, and cancelled when the last
/// one is removed, so that a context no watch asks for them tracks nothing
/// for the watcher (see `ObjectContext.addPendingChangesObserver(_:)`).
///
/// The watcher and its table of watches (`MasterFilter.pendingSubscription`)
/// share it: a ``WatchToken`` reaches the table alone, and a removal
/// through it ends the subscription too.
final class PendingSubscription: Sendable {
  private struct State {
    weak var context: ObjectContext?
    var token: SaveObserverToken?
  }

  private let state: LockedState<State>

  /// A subscription to `context`'s pending changes, not started.
  init(context: ObjectContext) {
    state = LockedState(State(context: context))
  }

  /// Subscribes, unless subscribed already or the context is gone: the
  /// context calls `observer` with each publication, on its queue.
  func start(_ observer: @escaping @Sendable (ContextSave, ObjectContext?) -> Void) {
    state.withLock { state in
      guard state.token == nil, let context = state.context else { return }
      state.token = context.addPendingChangesObserver { [weak context] changes in observer(changes, context) }
    }
  }

  /// Cancels the subscription when no watch of `watches` follows pending
  /// changes.
  ///
  /// The count is read under this subscription's lock, which ``start(_:)``
  /// takes too: a watch added meanwhile (counted in the table before its
  /// `start`) either is counted here, and the subscription stays, or
  /// starts it again after. The lock order is this one, then the table's,
  /// then the context's registry; none of them is held while another
  /// takes them the other way.
  func stopIfUnfollowed(_ watches: LockedState<MasterFilter>) {
    let token: SaveObserverToken? = state.withLock { state in
      guard state.token != nil, watches.withLock({ $0.followsPendingCount == 0 }) else { return nil }
      defer { state.token = nil }
      return state.token
    }
    token?.cancel()
  }

  /// Cancels the subscription, whatever the watches: for a watcher going
  /// away.
  func stop() {
    let token = state.withLock { state in
      defer { state.token = nil }
      return state.token
    }
    token?.cancel()
  }
}
