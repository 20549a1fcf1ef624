import PredicateDSL

/// Range watches of one string attribute, by sorted bounds in Unicode
/// scalar order (`TextBounds`): `name >= 'a' AND name < 'm'`,
/// `name BETWEEN {'a', 'm'}`, one-sided bounds and `name BEGINSWITH 'abc'`.
///
/// The layout of `RangeIndex`, with byte strings for bounds: lower bounds
/// alone ascending and upper bounds alone descending (a value reaches a
/// prefix of each, found by binary search), intervals by lower bound under
/// an implicit tree of maxima. A node of the tree is the position of the
/// interval with the greatest upper bound in its run (4 bytes: the bounds
/// stay in the entries, which own their bytes); the run's least lower bound
/// is its first interval's. A search descends into the runs that start at
/// or below the value and whose greatest upper bound admits it: O(log n)
/// nodes per interval reported.
///
/// Registration files into a small pending index (`pending`), which the
/// next save sorts and searches beside the main one; the pending entries
/// are merged into the main lists only when they reach a sixteenth of
/// them, as in `BufferedRangeIndex`. So a save after a few registrations
/// sorts those few, not the whole index: O(k log k) for k new watches, and
/// the O(n) merge and rebuild happen once per n/16 registrations, O(1)
/// amortised per watch. Removal is
/// O(1) and lazy, as in `RangeIndex`: stale entries are recognised by
/// their watch identifier and dropped when they outnumber the live ones.
final class TextRangeIndex {
  /// One watch's bounds.
  struct Entry {
    let bounds: TextBounds
    let id: WatchID

    var slot: Int { id.slot }
    /// The lower bound, in lists whose entries all have one.
    var presentLower: [UInt8] { bounds.lower.unsafelyUnwrapped }
    /// The upper bound, in lists whose entries all have one.
    var presentUpper: [UInt8] { bounds.upper.unsafelyUnwrapped }
  }

  // No run-time exclusivity checks: invariant 1 in Scratch/ScratchBuffer.swift.
  @exclusivity(unchecked) private var lowers: [Entry] = []
  @exclusivity(unchecked) private var uppers: [Entry] = []
  @exclusivity(unchecked) private var intervals: [Entry] = []
  /// Node `j` (from 1) holds the position in `intervals` of the interval
  /// with the greatest upper bound in its run, -1 for a run past the last;
  /// the leaves are the intervals themselves. Empty while the intervals
  /// are few enough to scan. Invariant: built over `intervals` as they are
  /// now, or empty.
  @exclusivity(unchecked) private var reach: [Int32] = []
  /// Watches registered since the last merge, sorted and searched apart.
  @exclusivity(unchecked) private var pending: TextRangeIndex?
  /// Live watches, pending ones included.
  @exclusivity(unchecked) private(set) var count = 0
  /// Removed watches whose entries are still in the lists.
  @exclusivity(unchecked) private var stale = 0
  @exclusivity(unchecked) private var isSorted = true

  /// Intervals up to this many are scanned, not searched.
  private static let minimumTreeCount = 16

  /// The entries in the lists, stale ones included.
  private var entryCount: Int { lowers.count + uppers.count + intervals.count }

  /// Files a watch: into the main lists while they are short or unsorted
  /// (a first batch of registrations), else into the pending index.
  func insert(_ bounds: TextBounds, id: WatchID) {
    count += 1
    if entryCount < 64 || !isSorted {
      append(Entry(bounds: bounds, id: id))
      isSorted = false
      return
    }
    let pending = self.pending ?? TextRangeIndex()
    self.pending = pending
    pending.append(Entry(bounds: bounds, id: id))
    pending.isSorted = false
  }

  private func append(_ entry: Entry) {
    switch (entry.bounds.lower, entry.bounds.upper) {
    case (.some, .some): intervals.append(entry)
    case (.some, nil): lowers.append(entry)
    default: uppers.append(entry)
    }
  }

  /// Notes that one of the watches was removed: its entry stays until the
  /// stale entries outnumber the live ones.
  func noteRemoval() {
    stale += 1
    count -= 1
  }

  /// Sorts after insertions, merges the pending entries once they are many,
  /// and drops stale entries after many removals: once per save, before
  /// matching.
  func prepare(live entries: [WatchEntry?]) {
    if let pending {
      if pending.entryCount * 16 >= entryCount {
        lowers += pending.lowers
        uppers += pending.uppers
        intervals += pending.intervals
        self.pending = nil
        isSorted = false
      } else {
        pending.sortIfNeeded()
      }
    }
    if stale > 32 && stale > count {
      let isStale = { (entry: Entry) in entries[entry.slot]?.id != entry.id }
      lowers.removeAll(where: isStale)
      uppers.removeAll(where: isStale)
      intervals.removeAll(where: isStale)
      if let pending {
        pending.lowers.removeAll(where: isStale)
        pending.uppers.removeAll(where: isStale)
        pending.intervals.removeAll(where: isStale)
        pending.buildReach()
        if pending.entryCount == 0 { self.pending = nil }
      }
      stale = 0
      if isSorted { buildReach() }
    }
    sortIfNeeded()
  }

  private func sortIfNeeded() {
    guard !isSorted else { return }
    lowers.sort { TextBounds.order($0.presentLower, $1.presentLower) < 0 }
    uppers.sort { TextBounds.order($0.presentUpper, $1.presentUpper) > 0 }
    intervals.sort { TextBounds.order($0.presentLower, $1.presentLower) < 0 }
    buildReach()
    isSorted = true
  }

  /// Whether interval `a`'s upper bound admits every string `b`'s does.
  private static func reachesFarther(_ a: Entry, _ b: Entry) -> Bool {
    let order = TextBounds.order(a.presentUpper, b.presentUpper)
    return order > 0 || (order == 0 && (a.bounds.upperIncluded || !b.bounds.upperIncluded))
  }

  /// Builds the tree of maxima over `intervals`, bottom up: O(n).
  private func buildReach() {
    let count = intervals.count
    guard count > Self.minimumTreeCount else {
      reach = []
      return
    }
    let width = 1 << (Int.bitWidth - (count - 1).leadingZeroBitCount)
    reach = Array(repeating: -1, count: width)
    intervals.withUnsafeBufferPointer { entries in
      reach.withUnsafeMutableBufferPointer { nodes in
        func better(_ a: Int32, _ b: Int32) -> Int32 {
          if a < 0 { return b }
          if b < 0 { return a }
          return Self.reachesFarther(entries[Int(a)], entries[Int(b)]) ? a : b
        }
        for node in stride(from: width - 1, through: width / 2, by: -1) {
          let first = 2 * node - width
          let left: Int32 = first < count ? Int32(first) : -1
          let right: Int32 = first + 1 < count ? Int32(first + 1) : -1
          nodes[node] = better(left, right)
        }
        for node in stride(from: width / 2 - 1, through: 1, by: -1) {
          nodes[node] = better(nodes[2 * node], nodes[2 * node + 1])
        }
      }
    }
  }

  /// The slots of the live watches whose bounds admit `value`, a string
  /// attribute's value; nothing for nil. The lists must be sorted
  /// (`prepare`, once per save).
  func collect(_ value: borrowing FilterValue, live entries: [WatchEntry?], into slots: SlotBuffer) {
    switch value {
    case .string(let text):
      let checks = stale > 0
      TextBounds.withUTF8(text) { bytes in
        collect(bytes, live: entries, checks: checks, into: slots)
        pending?.collect(bytes, live: entries, checks: checks, into: slots)
      }
    default: return
    }
  }

  private func collect(
    _ key: UnsafeBufferPointer<UInt8>, live entries: [WatchEntry?], checks: Bool, into slots: SlotBuffer
  ) {
    @inline(__always) func isLive(_ entry: Entry) -> Bool { !checks || entries[entry.slot]?.id == entry.id }
    @inline(__always) func order(_ bound: [UInt8]) -> Int {
      bound.withUnsafeBufferPointer { TextBounds.order($0, key) }
    }
    if !lowers.isEmpty {
      // Bounds below the value: a prefix; then those equal to it.
      var end = Self.partition(lowers) { order($0.presentLower) < 0 }
      for entry in lowers[..<end] where isLive(entry) { slots.append(entry.slot) }
      while end < lowers.count, order(lowers[end].presentLower) == 0 {
        if lowers[end].bounds.lowerIncluded && isLive(lowers[end]) { slots.append(lowers[end].slot) }
        end += 1
      }
    }
    if !uppers.isEmpty {
      var end = Self.partition(uppers) { order($0.presentUpper) > 0 }
      for entry in uppers[..<end] where isLive(entry) { slots.append(entry.slot) }
      while end < uppers.count, order(uppers[end].presentUpper) == 0 {
        if uppers[end].bounds.upperIncluded && isLive(uppers[end]) { slots.append(uppers[end].slot) }
        end += 1
      }
    }
    guard !intervals.isEmpty else { return }
    guard !reach.isEmpty else {
      let end = Self.partition(intervals) { order($0.presentLower) <= 0 }
      for entry in intervals[..<end] where entry.bounds.contains(key) && isLive(entry) { slots.append(entry.slot) }
      return
    }
    intervals.withUnsafeBufferPointer { intervals in
      reach.withUnsafeBufferPointer { nodes in
        let width = nodes.count
        /// Whether some interval of node's run may hold the key: its first
        /// starts at or below the key and its greatest upper bound admits it.
        func mayHold(_ node: Int) -> Bool {
          let best = nodes[node]
          guard best >= 0 else { return false }
          let shift = (width.trailingZeroBitCount) - (Int.bitWidth - 1 - node.leadingZeroBitCount)
          let first = (node << shift) - width
          guard order(intervals[first].presentLower) <= 0 else { return false }
          let upper = intervals[Int(best)]
          let end = order(upper.presentUpper)
          return end > 0 || (end == 0 && upper.bounds.upperIncluded)
        }
        guard mayHold(1) else { return }
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * Int.bitWidth) { stack in
          stack[0] = 1
          var top = 1
          while top > 0 {
            top -= 1
            let node = stack[top]
            let (left, right) = (2 * node, 2 * node + 1)
            if left >= width {
              // Children are leaves: the intervals themselves.
              for leaf in (left - width)..<min(right - width + 1, intervals.count) {
                let entry = intervals[leaf]
                if entry.bounds.contains(key) && isLive(entry) { slots.append(entry.slot) }
              }
              continue
            }
            if mayHold(right) {
              stack[top] = right
              top += 1
            }
            if mayHold(left) {
              stack[top] = left
              top += 1
            }
          }
        }
      }
    }
  }

  /// The number of leading entries for which `isBefore` holds.
  @inline(__always)
  private static func partition(_ entries: [Entry], isBefore: (Entry) -> Bool) -> Int {
    var low = 0
    var high = entries.count
    while low < high {
      let middle = (low + high) / 2
      if isBefore(entries[middle]) { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
