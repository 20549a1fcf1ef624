import ObjectGraph

/// Keeps a watch alive: cancel it, or release it, to remove the watch.
///
/// A token does not keep its watcher alive.
public final class WatchToken: Sendable {
  /// The watch's identity, as attribution in deliveries names it.
  public let id: WatchID
  /// The watcher's table of watches, not the watcher: a strong reference,
  /// cheaper to make than a weak one (a registration makes one). A watcher
  /// going away empties its table (`ContextWatcher.deinit`), so a token
  /// that outlives its watcher holds an empty table, nothing more.
  private let watches: LockedState<MasterFilter>

  init(id: WatchID, watches: LockedState<MasterFilter>) {
    self.id = id
    self.watches = watches
  }

  /// Removes the watch. Deliveries already made still name it; later saves
  /// do not. Cancelling twice changes nothing. The last watch of a watcher
  /// to follow pending changes takes the watcher's subscription to them
  /// with it.
  public func cancel() {
    watches.withLock { $0.remove(id) }?.stopIfUnfollowed(watches)
  }

  deinit { cancel() }
}
