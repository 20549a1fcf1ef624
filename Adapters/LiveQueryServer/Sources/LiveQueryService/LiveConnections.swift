import LiveQueryCore
import PredicateDSL
import Synchronization

/// The open connections: their sessions, for `/metrics`, and a way to end
/// each one, for shutdown.
final class LiveConnections: Sendable {
  private struct Entry {
    var session: LiveSession
    var end: @Sendable (CloseReason) -> Void
  }

  /// A session whose client went away, kept for it to resume.
  struct Parked: Sendable {
    var session: LiveSession
    var replay: ReplayLog
    /// The claims the session was opened with: a resuming token must
    /// carry the same.
    var claims: [String: FilterValue]
  }

  private let entries = Mutex<[ObjectIdentifier: Entry]>([:])
  private let parked = Mutex<[String: (parked: Parked, expiry: Task<Void, Never>)]>([:])

  /// Adds a connection; `end` makes it close with a reason.
  func add(_ session: LiveSession, end: @escaping @Sendable (CloseReason) -> Void) {
    entries.withLock { $0[ObjectIdentifier(session)] = Entry(session: session, end: end) }
  }

  func remove(_ session: LiveSession) { entries.withLock { $0[ObjectIdentifier(session)] = nil } }

  var count: Int { entries.withLock { $0.count } }

  /// Keeps a session for `window` under `id`; past it, the session ends.
  func park(_ session: Parked, id: String, window: Duration) {
    let expiry = Task { [weak self] in
      try? await Task.sleep(for: window)
      guard !Task.isCancelled, let self else { return }
      let expired = parked.withLock { $0.removeValue(forKey: id) }
      expired?.parked.session.close()
    }
    parked.withLock { $0[id] = (session, expiry) }
  }

  /// Takes the session parked under `id` if its claims are `claims`
  /// (expiry times aside); nil when there is none, it expired, or it is
  /// another user's.
  func resume(_ id: String, claims: [String: FilterValue]) -> Parked? {
    let ignored: Set<String> = ["exp", "iat", "nbf", "jti"]
    func identity(_ claims: [String: FilterValue]) -> [String: FilterValue] {
      claims.filter { !ignored.contains($0.key) }
    }
    let found = parked.withLock { parked -> (parked: Parked, expiry: Task<Void, Never>)? in
      guard let entry = parked[id], identity(entry.parked.claims) == identity(claims) else { return nil }
      parked[id] = nil
      return entry
    }
    found?.expiry.cancel()
    return found?.parked
  }

  /// The sessions parked, for `/metrics`.
  var parkedCount: Int { parked.withLock { $0.count } }

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
