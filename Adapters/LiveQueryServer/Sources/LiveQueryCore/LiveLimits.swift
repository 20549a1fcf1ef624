/// The limits a session enforces. A request beyond one is refused with an
/// `error` and ends nothing else; the outbox bounds are what keeps a
/// session's memory bounded whatever its client does.
public struct LiveLimits: Hashable, Sendable {
  /// The longest frame read, in UTF-8 bytes (64 KiB by default).
  public var maximumFrameBytes: Int
  /// The most subscriptions and watches one session holds together (100 by
  /// default).
  public var maximumSubscriptions: Int
  /// The longest predicate text, in UTF-8 bytes (4 KiB by default).
  public var maximumPredicateBytes: Int
  /// The longest subscription or watch id, in UTF-8 bytes (128 by default).
  public var maximumIDBytes: Int
  /// The bytes of data frames (`snapshot`, `changes`, `event`) the outbox
  /// holds before it drops a subscription's changes (1 MiB by default).
  public var outboxBytes: Int
  /// What control frames (`error`, `pong`) may add beyond ``outboxBytes``
  /// (64 KiB by default); past it they are dropped and counted, and the
  /// transport should stop reading from the client.
  public var controlReserveBytes: Int

  /// Creates limits; every argument defaults to the value documented on
  /// its property.
  public init(
    maximumFrameBytes: Int = 64 * 1024, maximumSubscriptions: Int = 100, maximumPredicateBytes: Int = 4 * 1024,
    maximumIDBytes: Int = 128, outboxBytes: Int = 1024 * 1024, controlReserveBytes: Int = 64 * 1024
  ) {
    self.maximumFrameBytes = maximumFrameBytes
    self.maximumSubscriptions = maximumSubscriptions
    self.maximumPredicateBytes = maximumPredicateBytes
    self.maximumIDBytes = maximumIDBytes
    self.outboxBytes = outboxBytes
    self.controlReserveBytes = controlReserveBytes
  }
}
