/// A message a session sends. ``text`` writes it as a frame;
/// ``parse(_:)`` reads one back, for clients and tests.
public enum ServerMessage: Equatable, Sendable {
  /// A subscription's whole list.
  case snapshot(SnapshotMessage)
  /// A subscription's changes.
  case changes(ChangesMessage)
  /// A watch's objects of one save.
  case event(EventMessage)
  /// A refused request.
  case error(LiveError)
  /// The answer to a `ping`.
  case pong(id: String?)
  /// The connection is authenticated and takes requests; `seq` is the
  /// last save made so far, `session` the id to resume the session with
  /// after a lost connection, and `resumed` whether this connection
  /// resumed one (its subscriptions and watches are still there).
  case ready(sequenceNumber: Int, session: String?, resumed: Bool)
}
