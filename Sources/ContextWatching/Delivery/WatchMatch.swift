/// One watch's view of one object in a delivery.
public struct WatchMatch: Hashable, Sendable, CustomStringConvertible {
  /// The watch.
  public var watch: WatchID
  /// What it saw.
  public var event: WatchEvent

  /// Creates a match.
  public init(watch: WatchID, event: WatchEvent) {
    self.watch = watch
    self.event = event
  }

  /// `watch 2 entered`.
  public var description: String { "\(watch) \(event)" }
}
