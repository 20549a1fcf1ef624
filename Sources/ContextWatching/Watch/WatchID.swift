/// The identity of one watch of a ``ContextWatcher``: what attribution in
/// ``ContextChanges`` refers to. Identifiers are unique within their
/// watcher, ordered as the watches were registered, and otherwise opaque;
/// `description` shows the watch's number (`watch 3`).
public struct WatchID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The identifier, unique within its watcher and increasing in
  /// registration order. (The bits above the low 24 are the watch's
  /// `number`; the low 24 are its place in the watcher's tables, so that
  /// finding a watch by identifier is an array access, not a lookup in a
  /// table of every watch.) Package-level: the layout is the watcher's.
  package let rawValue: UInt64

  /// An identifier from its raw value, as `rawValue` gave it: for tests
  /// of identifiers no watcher handed out. Watchers make their own.
  init(rawValue: UInt64) { self.rawValue = rawValue }

  /// The watch's number: 1 for its watcher's first watch, 2 for the
  /// second, and so on.
  package var number: UInt64 { rawValue >> UInt64(Self.slotBits) }

  /// The most watches one watcher holds at once: 2²⁴ (16,777,216).
  public static let maximumWatchCount = 1 << slotBits

  static let slotBits = 24
  /// The first number a watcher cannot hand out: 2⁴⁰, about 1.1 × 10¹²
  /// registrations in one watcher's life.
  static let numberLimit: UInt64 = 1 << UInt64(64 - slotBits)

  init(number: UInt64, slot: Int) {
    rawValue = number << UInt64(Self.slotBits) | UInt64(slot)
  }

  /// The watch's place in its watcher's tables.
  var slot: Int { Int(truncatingIfNeeded: rawValue & UInt64(Self.maximumWatchCount - 1)) }

  /// Orders identifiers by registration.
  public static func < (lhs: WatchID, rhs: WatchID) -> Bool { lhs.rawValue < rhs.rawValue }

  /// `watch 3`; an identifier no watcher hands out (number 0) shows its
  /// raw value: `watch (raw 5)`.
  public var description: String { number > 0 ? "watch \(number)" : "watch (raw \(rawValue))" }
}
