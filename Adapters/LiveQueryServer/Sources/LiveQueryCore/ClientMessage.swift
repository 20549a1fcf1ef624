/// A message a client sends. ``parse(_:limits:)`` reads one from a frame's
/// text and ``text`` writes it back.
///
/// ```swift
/// let message = try ClientMessage.parse(#"{"op":"ping","id":"p1"}"#)
/// message.text  // {"v":1,"op":"ping","id":"p1"}
/// ```
public enum ClientMessage: Hashable, Sendable {
  /// Starts a live list.
  case subscribe(SubscribeRequest)
  /// Starts a watch.
  case watch(WatchRequest)
  /// Changes a live list's request.
  case update(UpdateRequest)
  /// Ends a subscription or a watch.
  case unsubscribe(id: String)
  /// Asks for a `pong` carrying the same id.
  case ping(id: String?)
}
