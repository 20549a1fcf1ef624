import PredicateDSL

/// The range index of one attribute of an entity's bucket: a `RangeIndex`
/// that files registrations made after its first save into a small index
/// of its own (`pending`), searched beside it.
///
/// Registration, merging and removal follow `BufferedRegistration`: a
/// save sorts only what is new, O(k log k) for k registrations, and merges
/// the pending entries in (two sorted runs, one merge) with a rebuild of
/// the tree once per n/16 of them. This index counts every removal,
/// pending or not; matching checks the liveness of the pending entries
/// whenever it checks its own, and dropping stale entries drops them from
/// both.
final class BufferedRangeIndex: RangeIndex {
  /// The watches registered since the main lists were last sorted and
  /// merged; nil when there are none.
  // No run-time exclusivity checks: invariant 1 in Scratch/ScratchBuffer.swift.
  @exclusivity(unchecked) private var pending: RangeIndex?

  /// The live watches, pending ones included (`count` alone can fall below
  /// zero when pending watches are removed).
  var liveCount: Int { count + (pending?.count ?? 0) }

  /// Files a watch, into the pending index when the main lists are sorted
  /// and long.
  func file(_ bounds: RangeBounds, id: WatchID) {
    guard !BufferedRegistration.takesDirectly(entryCount: entryCount, isSorted: isPrepared) else {
      return insert(bounds, id: id)
    }
    let pending = self.pending ?? RangeIndex()
    self.pending = pending
    pending.insert(bounds, id: id)
  }

  /// Merges the pending entries when they are many, sorts what is new and
  /// drops stale entries after many removals: once per save, before
  /// matching (`MasterFilter.prepareRanges`).
  func prepareBuffered(live entries: [WatchEntry?]) {
    if let pending, BufferedRegistration.shouldMerge(pending: pending.entryCount, main: entryCount) {
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
