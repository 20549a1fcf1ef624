import ContextWatching

/// One `watch` of a session: the entity's access and the watch's token.
final class WatchSubscription: @unchecked Sendable {
  // @unchecked Sendable: its variables are read and written only on the
  // session's queue (requests, deliveries and catch-ups all run there);
  // other threads only carry the reference back to that queue.
  let request: WatchRequest
  let access: EntityAccess
  var token: WatchToken?
  /// The saves whose events were dropped, first and last, until the next
  /// catch-up reports them.
  var missed: ClosedRange<Int>?
  /// Events after this save may have been lost with a connection; the
  /// catch-up says so.
  var lostAfter: Int?

  init(request: WatchRequest, access: EntityAccess) {
    self.request = request
    self.access = access
  }
}
