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
  /// Counts the requests listed: the monitor's request carries it in its
  /// label (`id#generation`), so that a delivery tells whether it comes
  /// before or after the latest `update`.
  var generation = 0
  /// An `update` waits for its `changes`.
  var awaitsUpdate = false

  /// The label of the list request of the current generation.
  var label: String { "\(request.id)#\(generation)" }

  init(request: SubscribeRequest, access: EntityAccess, monitor: ListMonitor) {
    self.request = request
    self.access = access
    self.monitor = monitor
  }
}
