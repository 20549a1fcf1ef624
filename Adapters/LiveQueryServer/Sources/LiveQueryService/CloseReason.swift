import NIOWebSocket

/// Why the server closes a connection: the close frame's code and reason,
/// which a client shows or acts on (docs/live-queries.md lists them).
struct CloseReason: Error, Sendable {
  var code: UInt16
  var reason: String

  /// The token is missing or does not verify: sign in and connect again.
  static func tokenRefused(_ refusal: TokenRefusal) -> CloseReason { CloseReason(code: 4001, reason: refusal.message) }
  /// The token expired while the connection was open.
  static func tokenExpired(_ refusal: TokenRefusal) -> CloseReason { CloseReason(code: 4002, reason: refusal.message) }
  /// The client did not read its frames for too long.
  static func tooSlow(seconds: String) -> CloseReason {
    CloseReason(
      code: 4008,
      reason: "the client did not read for \(seconds) s; reconnect and subscribe again (snapshots follow)")
  }
  /// The server is stopping.
  static let shuttingDown = CloseReason(code: 1001, reason: "the server is shutting down; reconnect")
  /// The first frame was not an `auth` frame.
  static func authenticateFirst(_ detail: String) -> CloseReason {
    CloseReason(
      code: 4001, reason: "\(detail); send {\"op\":\"auth\",\"token\":\"…\"} first, or an Authorization header")
  }

  /// A duration in seconds as people write it: `10`, `0.5`.
  static func seconds(_ duration: Duration) -> String {
    let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    return seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
  }

  var errorCode: WebSocketErrorCode { .init(codeNumber: Int(code)) }
}
