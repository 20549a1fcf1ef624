/// A logical message a transaction emitted with `pg_logical_emit_message`.
public struct LogicalMessage: Hashable, Sendable {
  /// The message's prefix: `"context-watch.author"`.
  public var prefix: String
  /// The message's text.
  public var content: String

  /// Creates a message.
  public init(prefix: String, content: String) {
    self.prefix = prefix
    self.content = content
  }
}
