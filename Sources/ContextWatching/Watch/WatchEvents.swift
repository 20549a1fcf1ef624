/// A set of ``WatchEvent`` kinds: the events a watch reports.
public struct WatchEvents: OptionSet, Hashable, Sendable {
  /// The bits.
  public let rawValue: UInt8

  /// Creates a set from its bits.
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// ``WatchEvent/inserted``.
  public static let inserted = WatchEvents(rawValue: 1 << 0)
  /// ``WatchEvent/updated``.
  public static let updated = WatchEvents(rawValue: 1 << 1)
  /// ``WatchEvent/entered``.
  public static let entered = WatchEvents(rawValue: 1 << 2)
  /// ``WatchEvent/exited``.
  public static let exited = WatchEvents(rawValue: 1 << 3)
  /// ``WatchEvent/deleted``.
  public static let deleted = WatchEvents(rawValue: 1 << 4)
  /// Every event.
  public static let all: WatchEvents = [.inserted, .updated, .entered, .exited, .deleted]

  /// The set holding one event.
  public init(_ event: WatchEvent) {
    switch event {
    case .inserted: self = .inserted
    case .updated: self = .updated
    case .entered: self = .entered
    case .exited: self = .exited
    case .deleted: self = .deleted
    }
  }
}
