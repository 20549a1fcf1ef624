/// The live-query protocol's constants: its version and the names of its
/// operations. Every frame is one JSON object, sent as a WebSocket text
/// frame; docs/live-queries.md describes each message with an example.
public enum LiveProtocol {
  /// The protocol version this library speaks. Server messages carry it as
  /// `"v"`; a client message may carry it, and any other value is refused
  /// with ``LiveErrorCode/unsupportedVersion``.
  public static let version: Int64 = 1

  /// The operations a client sends, in the order messages list them.
  static let clientOps = ["subscribe", "watch", "update", "unsubscribe", "ping"]
}
