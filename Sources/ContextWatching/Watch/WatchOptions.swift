public import ObjectGraph

/// The identity of one watch of a ``ContextWatcher``: what attribution in
/// ``ContextChanges`` refers to.
public struct WatchID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The identifier, unique within its watcher and increasing in
  /// registration order; treat it as opaque. (The bits above the low 24
  /// are the watch's ``number``; the low 24 are its place in the watcher's
  /// tables, so that finding a watch by identifier is an array access, not
  /// a lookup in a table of every watch.)
  public let rawValue: UInt64

  /// Creates an identifier from its raw value, as ``rawValue`` gave it.
  public init(rawValue: UInt64) { self.rawValue = rawValue }

  /// The watch's number: 1 for its watcher's first watch, 2 for the
  /// second, and so on.
  public var number: UInt64 { rawValue >> UInt64(Self.slotBits) }

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

/// What happened to an object, as one watch sees it.
public enum WatchEvent: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// Inserted, and matching the watch's predicate.
  case inserted
  /// Updated, matching the predicate before and after the save.
  case updated
  /// Updated (or changed through a relationship) so that it matches now and
  /// did not before.
  case entered
  /// Updated (or changed through a relationship) so that it matched before
  /// and does not now.
  case exited
  /// Deleted, and matching the predicate on its last saved values.
  case deleted

  /// The event's name: `"entered"`.
  public var description: String { rawValue }
}

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

/// How one watch filters what it reports, beyond its predicate.
///
/// ```swift
/// var options = WatchOptions()
/// options.events = [.entered, .exited]
/// options.watchedKeys = ["salary"]        // or ignoredKeys, not both
/// let token = try watcher.watch("Person", where: "age > 30", options: options)
/// ```
public struct WatchOptions: Hashable, Sendable {
  /// The events reported; all by default.
  public var events: WatchEvents = .all
  /// When set, an update counts only if it changes one of these keys.
  /// Entering and exiting always count. Exclusive with ``ignoredKeys``.
  public var watchedKeys: Set<String>? {
    get { filters?.values.watchedKeys }
    set { update { $0.watchedKeys = newValue } }
  }
  /// An update that changes only these keys does not count. A key that the
  /// predicate reads is never ignored: a change to it always counts. Added
  /// to the entity's ignored keys from the schema.
  public var ignoredKeys: Set<String> {
    get { filters?.values.ignoredKeys ?? [] }
    set { update { $0.ignoredKeys = newValue } }
  }
  /// When set, only these objects are reported (an instance filter).
  public var objectIDs: Set<ObjectID>? {
    get { filters?.values.objectIDs }
    set { update { $0.objectIDs = newValue } }
  }
  /// A name for messages and for the command line: `"seniors"`. By default
  /// the watch's entity and predicate.
  public var label: String? {
    get { filters?.values.label }
    set { update { $0.label = newValue } }
  }

  /// Whether the entity's ignored keys from the schema are set aside, so
  /// that every change of a matching object counts: a list monitor keeps
  /// exact snapshots of its objects.
  var countsIgnoredKeys: Bool {
    get { filters?.values.countsIgnoredKeys ?? false }
    set { update { $0.countsIgnoredKeys = newValue } }
  }

  /// Everything but the events, shared by copies and nil while all of it
  /// has its default: most watches take the default options, which then
  /// cost one word to keep and nothing to copy or destroy (four optional
  /// sets and a string would cost a release each).
  private var filters: Filters?

  private struct Values: Hashable {
    var watchedKeys: Set<String>?
    var ignoredKeys: Set<String> = []
    var objectIDs: Set<ObjectID>?
    var label: String?
    var countsIgnoredKeys = false
  }

  private final class Filters: Sendable {
    let values: Values
    init(_ values: Values) { self.values = values }
  }

  /// Changes the values; back to nil when they are all defaults again.
  private mutating func update(_ change: (inout Values) -> Void) {
    var values = filters?.values ?? Values()
    change(&values)
    filters = values == Values() ? nil : Filters(values)
  }

  /// Creates options that report every event of every object.
  public init(
    events: WatchEvents = .all, watchedKeys: Set<String>? = nil, ignoredKeys: Set<String> = [],
    objectIDs: Set<ObjectID>? = nil, label: String? = nil
  ) {
    self.events = events
    if watchedKeys != nil || !ignoredKeys.isEmpty || objectIDs != nil || label != nil {
      filters = Filters(Values(watchedKeys: watchedKeys, ignoredKeys: ignoredKeys, objectIDs: objectIDs, label: label))
    }
  }

  /// Equal when every option is.
  public static func == (lhs: WatchOptions, rhs: WatchOptions) -> Bool {
    lhs.events == rhs.events && (lhs.filters === rhs.filters || lhs.filters?.values == rhs.filters?.values)
  }

  /// Hashes every option.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(events)
    hasher.combine(filters?.values)
  }
}
