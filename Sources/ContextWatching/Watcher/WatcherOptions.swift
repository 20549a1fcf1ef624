public import PredicateDSL

/// Options of a whole watcher.
public struct WatcherOptions: Hashable, Sendable {
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
    ignoredAuthors: Set<String> = [], bufferLimit: Int = 1024, predicateLimits: PredicateLimits = .default
  ) {
    self.ignoredAuthors = ignoredAuthors
    self.bufferLimit = bufferLimit
    self.predicateLimits = predicateLimits
  }
}
