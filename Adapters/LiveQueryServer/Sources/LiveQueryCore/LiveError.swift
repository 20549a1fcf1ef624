/// A refused request, sent to the client as an `error` message: the id of
/// the subscription or watch it concerns (nil when the frame had none), a
/// code and a message the user can act on.
///
/// A refusal ends nothing but the request: the session and its other
/// subscriptions go on.
public struct LiveError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The subscription's or watch's id, when the request named one.
  public var id: String?
  /// What kind of refusal.
  public var code: LiveErrorCode
  /// What is wrong; for a predicate, the rendering with a caret that
  /// `context-watch check` prints.
  public var message: String

  /// Creates an error.
  public init(id: String?, code: LiveErrorCode, message: String) {
    self.id = id
    self.code = code
    self.message = message
  }

  /// `code: message`, with the id when there is one.
  public var description: String { "\(id.map { "\($0): " } ?? "")\(code): \(message)" }
}
