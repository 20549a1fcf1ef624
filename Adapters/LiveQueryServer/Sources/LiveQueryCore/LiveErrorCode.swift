/// The kinds of refused request. A code is a stable name clients can
/// switch on (`"invalidPredicate"`); new codes may be added.
public struct LiveErrorCode: Hashable, Sendable, CustomStringConvertible {
  /// The code's name, as written in `error` messages.
  public let name: String

  /// Creates a code with its name on the wire.
  public init(_ name: String) { self.name = name }

  /// The frame is not a JSON object, or a field is missing, unknown or of
  /// the wrong type.
  public static let malformedFrame = LiveErrorCode("malformedFrame")
  /// The frame's `"v"` is not ``LiveProtocol/version``.
  public static let unsupportedVersion = LiveErrorCode("unsupportedVersion")
  /// The frame's `"op"` is not one of the protocol's operations.
  public static let unknownOp = LiveErrorCode("unknownOp")
  /// The frame is longer than ``LiveLimits/maximumFrameBytes``.
  public static let frameTooLarge = LiveErrorCode("frameTooLarge")
  /// The connection already holds ``LiveLimits/maximumSubscriptions``
  /// subscriptions and watches.
  public static let tooManySubscriptions = LiveErrorCode("tooManySubscriptions")
  /// The predicate is longer than ``LiveLimits/maximumPredicateBytes``.
  public static let predicateTooLong = LiveErrorCode("predicateTooLong")
  /// A `subscribe` or `watch` reuses the id of a live subscription or watch.
  public static let duplicateID = LiveErrorCode("duplicateID")
  /// An `update` or `unsubscribe` names no live subscription or watch.
  public static let unknownID = LiveErrorCode("unknownID")
  /// The entity has no read policy, or the session's role may read none of
  /// its attributes. An entity the schema lacks gets the same answer.
  public static let entityNotReadable = LiveErrorCode("entityNotReadable")
  /// The predicate, a sort key or the section key reads a key the session
  /// may not read. A key the entity lacks gets the same answer.
  public static let keyNotReadable = LiveErrorCode("keyNotReadable")
  /// The predicate does not parse, or cannot apply to the keys' types.
  public static let invalidPredicate = LiveErrorCode("invalidPredicate")
  /// An argument is not a value in the JSON conventions of `WatchFormats`.
  public static let invalidArguments = LiveErrorCode("invalidArguments")
  /// The request is well formed but cannot be served: no sort key, a
  /// section key that is not the first sort key, a limit below 1, no events.
  public static let invalidRequest = LiveErrorCode("invalidRequest")
  /// A watch's events were dropped while the client did not read (a watch
  /// has no list to catch up with); the watch goes on.
  public static let eventsDropped = LiveErrorCode("eventsDropped")

  /// The name.
  public var description: String { name }
}
