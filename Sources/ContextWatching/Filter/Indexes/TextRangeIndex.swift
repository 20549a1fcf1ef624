import PredicateDSL

/// Range watches of one string attribute, by sorted bounds in Unicode
/// scalar order (`TextBounds`): `name >= 'a' AND name < 'm'`,
/// `name BETWEEN {'a', 'm'}`, one-sided bounds and `name BEGINSWITH 'abc'`.
///
/// The layout of `RangeIndex`, with byte strings for bounds: lower bounds
/// alone ascending and upper bounds alone descending (a value reaches a
/// prefix of each, found by binary search), ranges by lower bound under
/// an implicit tree of maxima. A node of the tree is the position of the
/// range with the greatest upper bound in its run (4 bytes: the bounds
/// stay in the entries, which own their bytes); the run's least lower bound
/// is its first range's. A search descends into the runs that start at
/// or below the value and whose greatest upper bound admits it: O(log n)
/// nodes per range reported.
///
/// Registration, merging and removal follow `BufferedRegistration`, as in
/// `BufferedRangeIndex`: new watches file into a small pending index
/// (`pending`) that the next save sorts and searches beside the main one,
/// merged in once per n/16 registrations; removal is O(1) and lazy.
final class TextRangeIndex {
  /// One watch's bounds, with the first eight bytes of each as an integer
  /// (`TextBounds.head`) that decides most comparisons without reading the
  /// bytes.
  struct Entry {
    let bounds: TextBounds
    let id: WatchID
    let lowerHead: UInt64
    let upperHead: UInt64

    init(bounds: TextBounds, id: WatchID) {
      self.bounds = bounds
      self.id = id
      lowerHead = bounds.lower.map(TextBounds.head) ?? 0
      upperHead = bounds.upper.map(TextBounds.head) ?? 0
    }

    var slot: Int { id.slot }
    /// The lower bound, in lists whose entries all have one.
    var presentLower: [UInt8] { bounds.lower.unsafelyUnwrapped }
    /// The upper bound, in lists whose entries all have one.
    var presentUpper: [UInt8] { bounds.upper.unsafelyUnwrapped }

    /// The order of the lower bound against `key`: -1, 0 or 1.
    @inline(__always)
    func orderOfLower(_ key: Probe) -> Int {
      if lowerHead != key.head { return lowerHead < key.head ? -1 : 1 }
      return bounds.lower.unsafelyUnwrapped.withUnsafeBufferPointer { TextBounds.order($0, key.bytes) }
    }

    /// The order of the upper bound against `key`.
    @inline(__always)
    func orderOfUpper(_ key: Probe) -> Int {
      if upperHead != key.head { return upperHead < key.head ? -1 : 1 }
      return bounds.upper.unsafelyUnwrapped.withUnsafeBufferPointer { TextBounds.order($0, key.bytes) }
    }

    /// Whether the bounds admit `key`.
    @inline(__always)
    func admits(_ key: Probe) -> Bool {
      if bounds.lower != nil {
        let order = orderOfLower(key)
        guard order < 0 || (order == 0 && bounds.lowerIncluded) else { return false }
      }
      if bounds.upper != nil {
        let order = orderOfUpper(key)
        guard order > 0 || (order == 0 && bounds.upperIncluded) else { return false }
      }
      return true
    }
  }

  /// An object's string as the index compares it: its UTF-8 and their
  /// head.
  struct Probe {
    let bytes: UnsafeBufferPointer<UInt8>
    let head: UInt64

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
      self.bytes = bytes
      head = TextBounds.head(bytes)
    }
  }

  /// A node of the tree of maxima: the heads of its run's least lower bound
  /// (its first range's) and greatest upper bound, and the positions of
  /// those two ranges (`best` -1 for a run past the last), so that most
  /// nodes are decided without reading an entry.
  struct Node {
    var upperHead: UInt64 = 0
    var lowerHead: UInt64 = 0
    var best: Int32 = -1
    var first: Int32 = -1
  }

  // No run-time exclusivity checks: invariant 1 in Scratch/ScratchBuffer.swift.
  @exclusivity(unchecked) private var lowers: [Entry] = []
  @exclusivity(unchecked) private var uppers: [Entry] = []
  @exclusivity(unchecked) private var bounded: [Entry] = []
  /// Node `j` (from 1) covers a run of `bounded` (node `j`'s children
  /// are `2j` and `2j + 1`; the leaves are the ranges themselves).
  /// Empty while the ranges are few enough to scan. Invariant: built
  /// over `bounded` as they are now, or empty.
  @exclusivity(unchecked) private var maxima: [Node] = []
  /// Watches registered since the last merge, sorted and searched apart.
  @exclusivity(unchecked) private var pending: TextRangeIndex?
  /// Live watches, pending ones included.
  @exclusivity(unchecked) private(set) var count = 0
  /// Removed watches whose entries are still in the lists.
  @exclusivity(unchecked) private var stale = 0
  @exclusivity(unchecked) private var isSorted = true

  /// The entries in the lists, stale ones included.
  private var entryCount: Int { lowers.count + uppers.count + bounded.count }

  /// Files a watch: into the main lists while they are short or unsorted
  /// (a first batch of registrations), else into the pending index.
  func insert(_ bounds: TextBounds, id: WatchID) {
    count += 1
    if BufferedRegistration.takesDirectly(entryCount: entryCount, isSorted: isSorted) {
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
    case (.some, .some): bounded.append(entry)
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
      if BufferedRegistration.shouldMerge(pending: pending.entryCount, main: entryCount) {
        lowers += pending.lowers
        uppers += pending.uppers
        bounded += pending.bounded
        self.pending = nil
        isSorted = false
      } else {
        pending.sortIfNeeded()
      }
    }
    if BufferedRegistration.shouldDropStale(stale: stale, live: count) {
      let isStale = { (entry: Entry) in entries[entry.slot]?.id != entry.id }
      lowers.removeAll(where: isStale)
      uppers.removeAll(where: isStale)
      bounded.removeAll(where: isStale)
      if let pending {
        pending.lowers.removeAll(where: isStale)
        pending.uppers.removeAll(where: isStale)
        pending.bounded.removeAll(where: isStale)
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
    lowers.sort { Self.orderOfLowers($0, $1) < 0 }
    uppers.sort { Self.orderOfUppers($0, $1) > 0 }
    bounded.sort { Self.orderOfLowers($0, $1) < 0 }
    buildReach()
    isSorted = true
  }

  /// The order of two entries' lower bounds, heads first.
  private static func orderOfLowers(_ a: Entry, _ b: Entry) -> Int {
    if a.lowerHead != b.lowerHead { return a.lowerHead < b.lowerHead ? -1 : 1 }
    return TextBounds.order(a.presentLower, b.presentLower)
  }

  /// The order of two entries' upper bounds, heads first.
  private static func orderOfUppers(_ a: Entry, _ b: Entry) -> Int {
    if a.upperHead != b.upperHead { return a.upperHead < b.upperHead ? -1 : 1 }
    return TextBounds.order(a.presentUpper, b.presentUpper)
  }

  /// Whether range `a`'s upper bound admits every string `b`'s does.
  private static func reachesFarther(_ a: Entry, _ b: Entry) -> Bool {
    let order = orderOfUppers(a, b)
    return order > 0 || (order == 0 && (a.bounds.upperIncluded || !b.bounds.upperIncluded))
  }

  /// Builds the tree of maxima over `bounded`, bottom up: O(n).
  private func buildReach() {
    let count = bounded.count
    guard count > TreeOfMaxima.minimumCount else {
      maxima = []
      return
    }
    maxima = Array(repeating: Node(), count: TreeOfMaxima.width(for: count))
    bounded.withUnsafeBufferPointer { entries in
      maxima.withUnsafeMutableBufferPointer { nodes in
        TreeOfMaxima.build(
          nodes,
          leaf: { position in
            guard position < count else { return Node() }
            let entry = entries[position]
            return Node(
              upperHead: entry.upperHead, lowerHead: entry.lowerHead, best: Int32(position), first: Int32(position))
          },
          joining: { left, right in
            guard left.best >= 0, right.best >= 0 else { return left.best >= 0 ? left : right }
            var node = left
            if !Self.reachesFarther(entries[Int(left.best)], entries[Int(right.best)]) {
              node.best = right.best
              node.upperHead = right.upperHead
            }
            return node
          })
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
    _ bytes: UnsafeBufferPointer<UInt8>, live entries: [WatchEntry?], checks: Bool, into slots: SlotBuffer
  ) {
    let key = Probe(bytes)
    @inline(__always) func isLive(_ entry: Entry) -> Bool { !checks || entries[entry.slot]?.id == entry.id }
    if !lowers.isEmpty {
      // Bounds below the value: a prefix; then those equal to it.
      var end = lowers.partitionPoint { $0.pointee.orderOfLower(key) < 0 }
      for entry in lowers[..<end] where isLive(entry) { slots.append(entry.slot) }
      while end < lowers.count, lowers[end].orderOfLower(key) == 0 {
        if lowers[end].bounds.lowerIncluded && isLive(lowers[end]) { slots.append(lowers[end].slot) }
        end += 1
      }
    }
    if !uppers.isEmpty {
      var end = uppers.partitionPoint { $0.pointee.orderOfUpper(key) > 0 }
      for entry in uppers[..<end] where isLive(entry) { slots.append(entry.slot) }
      while end < uppers.count, uppers[end].orderOfUpper(key) == 0 {
        if uppers[end].bounds.upperIncluded && isLive(uppers[end]) { slots.append(uppers[end].slot) }
        end += 1
      }
    }
    guard !bounded.isEmpty else { return }
    guard !maxima.isEmpty else {
      let end = bounded.partitionPoint { $0.pointee.orderOfLower(key) <= 0 }
      for entry in bounded[..<end] where entry.admits(key) && isLive(entry) { slots.append(entry.slot) }
      return
    }
    bounded.withUnsafeBufferPointer { bounded in
      maxima.withUnsafeBufferPointer { nodes in
        let width = nodes.count
        /// Whether some range of a run may hold the key: its first
        /// starts at or below the key and its greatest upper bound admits
        /// it. The heads decide unless they equal the key's.
        @inline(__always) func mayHold(_ node: Node) -> Bool {
          guard node.best >= 0 else { return false }
          if node.lowerHead > key.head { return false }
          if node.lowerHead == key.head, bounded[Int(node.first)].orderOfLower(key) > 0 { return false }
          if node.upperHead != key.head { return node.upperHead > key.head }
          let upper = bounded[Int(node.best)]
          let end = upper.orderOfUpper(key)
          return end > 0 || (end == 0 && upper.bounds.upperIncluded)
        }
        TreeOfMaxima.visit(width: width, mayHold: { mayHold(nodes[$0]) }) { leaf in
          guard leaf < bounded.count else { return }
          let entry = bounded[leaf]
          if entry.admits(key) && isLive(entry) { slots.append(entry.slot) }
        }
      }
    }
  }

}
