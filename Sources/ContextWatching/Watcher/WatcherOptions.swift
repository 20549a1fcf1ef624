public import PredicateDSL

/// Options of a whole watcher.
public struct WatcherOptions: Hashable, Sendable {
  /// The clock that `now()` reads in the watches' predicates, and that
  /// wakes the watcher when objects cross their thresholds; by default the
  /// system's. Tests pass a ``ManualWatchClock``. Options are equal only
  /// with the same clock instance.
  public var clock: any WatchClock
  /// Saves by these authors are skipped: one's own writes, typically.
  public var ignoredAuthors: Set<String>
  /// The most deliveries waiting for a slow consumer; beyond it deliveries
  /// are dropped and reported by an overflow signal
  /// (``ContextChanges/missedSaves``) instead of growing without bound.
  public var bufferLimit: Int
  /// The longest predicate text and the deepest nesting that a watch's
  /// format may have (longer or deeper text is refused before it is
  /// parsed), and the budget of its `MATCHES` patterns.
  public var predicateLimits: PredicateLimits

  /// Creates options.
  public init(
    ignoredAuthors: Set<String> = [], bufferLimit: Int = 1024, predicateLimits: PredicateLimits = .default,
    clock: any WatchClock = SystemWatchClock.shared
  ) {
    self.clock = clock
    self.ignoredAuthors = ignoredAuthors
    self.bufferLimit = bufferLimit
    self.predicateLimits = predicateLimits
  }

  /// Whether two options are alike, with the same clock instance.
  public static func == (lhs: WatcherOptions, rhs: WatcherOptions) -> Bool {
    lhs.ignoredAuthors == rhs.ignoredAuthors && lhs.bufferLimit == rhs.bufferLimit
      && lhs.predicateLimits == rhs.predicateLimits && lhs.clock === rhs.clock
  }

  /// Hashes the options (the clock by identity).
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ignoredAuthors)
    hasher.combine(bufferLimit)
    hasher.combine(predicateLimits)
    hasher.combine(ObjectIdentifier(clock))
  }
}
