import PredicateDSL

/// The range index of one attribute of an entity's bucket: a `RangeIndex`
/// that files registrations made after its first save into a small index
/// of its own (`pending`), searched beside it.
///
/// A save sorts only what is new. Registering k watches into an index of
/// n that matching has already sorted costs the next save the sort of the
/// pending entries and their tree, O(k log k), not a sort and rebuild of
/// all n. Once the pending entries reach a sixteenth of the main ones,
/// the save that follows merges them in (two sorted runs, one merge) and
/// rebuilds the tree, O(n): once per n/16 registrations, so O(1) amortised
/// per watch. A first batch of registrations (the index empty, or unsorted
/// since the last save) goes straight to the main lists, sorted once.
///
/// Removal stays O(1) and lazy: this index counts every removal, pending
/// or not; matching checks the liveness of the pending entries whenever it
/// checks its own, and dropping stale entries drops them from both.
final class BufferedRangeIndex: RangeIndex {
  /// The watches registered since the main lists were last sorted and
  /// merged; nil when there are none.
  // No run-time exclusivity checks: invariant 1 in Scratch/ScratchBuffer.swift.
  @exclusivity(unchecked) private var pending: RangeIndex?

  /// Main lists shorter than this take new watches directly: sorting them
  /// again costs little.
  private static let directCount = 64
  /// The pending entries are merged once they are this fraction of the
  /// main ones (1/16).
  private static let mergeDivisor = 16

  /// The live watches, pending ones included (`count` alone can fall below
  /// zero when pending watches are removed).
  var liveCount: Int { count + (pending?.count ?? 0) }

  /// Files a watch, into the pending index when the main lists are sorted
  /// and long.
  func file(_ bounds: RangeBounds, id: WatchID) {
    guard isPrepared, entryCount >= Self.directCount else { return insert(bounds, id: id) }
    let pending = self.pending ?? RangeIndex()
    self.pending = pending
    pending.insert(bounds, id: id)
  }

  /// Merges the pending entries when they are many, sorts what is new and
  /// drops stale entries after many removals: once per save, before
  /// matching (`MasterFilter.prepareRanges`).
  func prepareBuffered(live entries: [WatchEntry?]) {
    if let pending, pending.entryCount * Self.mergeDivisor >= entryCount {
      absorb(pending)
      self.pending = nil
    }
    prepare(live: entries, pending: pending)
  }

  /// The slots of the live watches whose bounds admit `key`, pending ones
  /// included. `prepareBuffered` must have run since the last insertion.
  @inline(__always)
  func collectBuffered(_ key: RangeKey, live entries: [WatchEntry?], into slots: SlotBuffer) {
    collect(key, live: entries, into: slots)
    if let pending { pending.collect(key, live: entries, checks: hasStaleEntries, into: slots) }
  }
}
