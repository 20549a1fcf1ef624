/// The registration policy both range indexes follow (`BufferedRangeIndex`
/// over numbers and dates, `TextRangeIndex` over strings), in one place.
///
/// - A first batch of registrations, or any into short lists, goes straight
///   into the main lists, which the next save sorts (`takesDirectly`).
/// - Later registrations go into a small pending index that the next save
///   sorts and that matching searches beside the main one, so a save after
///   k registrations sorts k entries, not the whole index. The pending
///   entries are merged in once they are a sixteenth of the main ones
///   (`shouldMerge`): the O(n) merge and rebuild happen once per n/16
///   registrations, O(1) amortised per watch.
/// - Removal is O(1) and lazy: an entry stays, recognised as stale by its
///   watch identifier, until the stale entries outnumber the live ones and
///   a save drops them (`shouldDropStale`), O(n) once per n removals.
enum BufferedRegistration {
  /// Main lists shorter than this take new watches directly: sorting them
  /// again costs little.
  static let directCount = 64
  /// The pending entries are merged once they are this fraction of the
  /// main ones (1/16).
  static let mergeDivisor = 16
  /// Fewer stale entries than this are never worth a pass to drop them.
  static let staleMinimum = 32

  /// Whether a new watch goes into the main lists: they hold fewer than
  /// `directCount` entries or are not sorted yet (a first batch).
  @inline(__always)
  static func takesDirectly(entryCount: Int, isSorted: Bool) -> Bool {
    !isSorted || entryCount < directCount
  }

  /// Whether the pending entries are many enough to merge into the main
  /// lists.
  @inline(__always)
  static func shouldMerge(pending: Int, main: Int) -> Bool {
    pending * mergeDivisor >= main
  }

  /// Whether a save drops the stale entries: more than `staleMinimum` of
  /// them, and more than the live watches.
  @inline(__always)
  static func shouldDropStale(stale: Int, live: Int) -> Bool {
    stale > staleMinimum && stale > live
  }
}
