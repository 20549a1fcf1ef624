import ContextWatching

/// One `subscribe` of a session: its request, the entity's access, and the
/// list monitor serving it.
final class ListSubscription: @unchecked Sendable {
  // @unchecked Sendable: its variables are read and written only on the
  // session's queue (requests, deliveries and catch-ups all run there);
  // other threads only carry the reference back to that queue.
  var request: SubscribeRequest
  let access: EntityAccess
  let monitor: ListMonitor
  var token: ObserverToken?
  /// Its changes were dropped; it gets a snapshot at the next catch-up.
  var isBehind = false
  /// An `update` waits for its `changes`.
  var awaitsUpdate = false
  /// The awaited `update` reverses the order of the sections: its answer
  /// replaces every section (see `LiveSession.listChanged`).
  var answerReplacesSections = false
  /// The list as of the last delivery or snapshot: what the client holds
  /// once it has applied every frame sent.
  var lastContent: ListContent?

  init(request: SubscribeRequest, access: EntityAccess, monitor: ListMonitor) {
    self.request = request
    self.access = access
    self.monitor = monitor
  }
}
