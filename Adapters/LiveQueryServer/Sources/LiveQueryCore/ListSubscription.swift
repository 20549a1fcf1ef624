import ContextWatching

/// One `subscribe` of a session: its request, the entity's access, and the
/// list monitor serving it.
final class ListSubscription: @unchecked Sendable {
  // @unchecked Sendable: its variables are read and written only on the
  // session's queue (requests, deliveries and catch-ups all run there);
  // other threads (the saving thread, which hands the monitor's updates
  // to the session) only read the immutable `monitor` and carry the
  // reference back to that queue.
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
  /// The list as of the last update the session handled (the monitor
  /// applies saves on the saving thread, ahead of the session): what a
  /// catch-up's snapshot sends.
  var content: ListContent
  /// The save ``content`` is as of.
  var contentSequence: Int
  /// The label of the request of the last update the session handled.
  var deliveredLabel: String
  /// Saves up to this one are in the first snapshot: their updates, still
  /// on their way to the session when it was taken, are skipped.
  var skipsThrough: Int

  /// The label of the list request of the current generation.
  var label: String { "\(request.id)#\(generation)" }

  init(request: SubscribeRequest, access: EntityAccess, monitor: ListMonitor) {
    self.request = request
    self.access = access
    self.monitor = monitor
    deliveredLabel = "\(request.id)#0"
    (content, contentSequence) = Self.currentContent(of: monitor)
    skipsThrough = contentSequence
  }

  /// Takes the monitor's content as the first snapshot's, once the
  /// session observes the monitor: the updates of saves it holds, which
  /// the session may already have been handed, are skipped.
  func takeCurrentContent() {
    (content, contentSequence) = Self.currentContent(of: monitor)
    skipsThrough = contentSequence
  }

  /// The monitor's content with the save it is as of, read together: the
  /// saving thread may apply a save between two reads. Only a save changes
  /// them while the session does not ask for a new request, and a save
  /// always moves the sequence number.
  static func currentContent(of monitor: ListMonitor) -> (ListContent, Int) {
    while true {
      let before = monitor.sequenceNumber
      let content = monitor.content
      if monitor.sequenceNumber == before { return (content, before) }
    }
  }
}
