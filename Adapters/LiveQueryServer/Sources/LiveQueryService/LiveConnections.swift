import LiveQueryCore
import Synchronization

/// The open connections: their sessions, for `/metrics`, and a way to end
/// each one, for shutdown.
final class LiveConnections: Sendable {
  private struct Entry {
    var session: LiveSession
    var end: @Sendable (CloseReason) -> Void
  }

  private let entries = Mutex<[ObjectIdentifier: Entry]>([:])

  /// Adds a connection; `end` makes it close with a reason.
  func add(_ session: LiveSession, end: @escaping @Sendable (CloseReason) -> Void) {
    entries.withLock { $0[ObjectIdentifier(session)] = Entry(session: session, end: end) }
  }

  func remove(_ session: LiveSession) { entries.withLock { $0[ObjectIdentifier(session)] = nil } }

  var count: Int { entries.withLock { $0.count } }

  /// Asks every connection to close with `reason`, and waits until they
  /// have, at most `timeout`.
  func closeAll(_ reason: CloseReason, timeout: Duration) async {
    let ends = entries.withLock { $0.values.map(\.end) }
    for end in ends { end(reason) }
    let deadline = ContinuousClock.now + timeout
    while count > 0, ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(10))
    }
  }

  /// The subscriptions and watches of every session, and the bytes their
  /// outboxes hold.
  func totals() -> (subscriptions: Int, bufferedBytes: Int) {
    let open = entries.withLock { $0.values.map(\.session) }
    var totals = (subscriptions: 0, bufferedBytes: 0)
    for session in open {
      totals.subscriptions += session.subscriptionCount
      totals.bufferedBytes += session.outbox.byteCount
    }
    return totals
  }
}
