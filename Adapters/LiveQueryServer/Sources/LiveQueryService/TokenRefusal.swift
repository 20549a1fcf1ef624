/// Why a client's token was not accepted: what the server tells the client
/// in the close frame (or the `401` response), and logs.
public struct TokenRefusal: Error, Hashable, Sendable, CustomStringConvertible {
  /// The kind of refusal.
  public enum Reason: String, Hashable, Sendable {
    /// No token: no `Authorization: Bearer` header and no `auth` frame.
    case missing
    /// Not a JWT, or its signature does not verify with the server's keys.
    case invalid
    /// Its `exp` is past.
    case expired
    /// Its `nbf` is still ahead.
    case notYetValid
  }

  /// The kind of refusal.
  public var reason: Reason
  /// One sentence for the client: what is wrong and what to do.
  public var message: String

  /// Creates a refusal.
  public init(_ reason: Reason, message: String) {
    self.reason = reason
    self.message = message
  }

  /// The message.
  public var description: String { message }
}
