extension RangeIndex {
  /// A tree of maxima over a range index's intervals, sorted by lower
  /// bound: each node holds the greatest upper bound of the intervals under
  /// it, so that a search leaves at once every run of intervals that ends
  /// below a value.
  ///
  /// The tree is implicit, as in a binary heap: node 1 is the root, node
  /// `j` has children `2j` and `2j + 1`, and the nodes from `width` to
  /// `2 * width - 1` are the intervals themselves (the leaves, read from
  /// the sorted list, not stored). `width` is the least power of two at
  /// least the number of intervals; leaves past the last interval hold no
  /// bound. So the tree stores `width - 1` nodes of 16 bytes: at most 32
  /// bytes an interval. Building it is O(n), bottom up.
  ///
  /// Invariant: built over the list as it is now (same entries, same
  /// order), or not built (`isBuilt` false) and then never read.
  struct Reach {
    /// Lists up to this long are scanned, not searched: a tree costs more
    /// to keep than it saves.
    static let minimumCount = 16

    /// Nodes 1 to `width - 1` (node 0 is unused).
    private var nodes: [Bound] = []
    /// The number of leaves, a power of two; 0 when not built.
    private var width = 0

    /// An upper bound and whether it is included; `isPresent` false for
    /// the leaves past the last interval, which admit nothing.
    struct Bound {
      var key: RangeKey
      var isIncluded: Bool
      var isPresent: Bool

      static let absent = Bound(key: RangeKey(bits: 0, isDouble: false), isIncluded: false, isPresent: false)

      init(key: RangeKey, isIncluded: Bool, isPresent: Bool) {
        self.key = key
        self.isIncluded = isIncluded
        self.isPresent = isPresent
      }

      /// The upper bound of an interval's entry.
      init(_ entry: Entry) {
        self.init(key: entry.presentUpper, isIncluded: entry.upperIncluded, isPresent: true)
      }

      /// Whether a value at `key` passes this upper bound.
      @inline(__always)
      func admits(_ key: RangeKey) -> Bool {
        guard isPresent, let order = RangeKey.order(key, self.key) else { return false }
        return order < 0 || (order == 0 && isIncluded)
      }

      /// The greater of two bounds: the one that admits every value the
      /// other admits (at equal keys, the included one).
      static func greater(_ a: Bound, _ b: Bound) -> Bound {
        guard a.isPresent else { return b }
        guard b.isPresent else { return a }
        let order = RangeKey.order(a.key, b.key) ?? 0
        if order != 0 { return order > 0 ? a : b }
        return a.isIncluded ? a : b
      }
    }

    /// Whether the tree is built (the list is longer than `minimumCount`).
    var isBuilt: Bool { width != 0 }

    /// Builds the tree over `entries`, sorted by lower bound; drops it when
    /// they are few.
    mutating func build(over entries: [Entry]) {
      guard entries.count > Self.minimumCount else {
        if width != 0 { self = Reach() }
        return
      }
      let width = 1 << (Int.bitWidth - (entries.count - 1).leadingZeroBitCount)
      if nodes.count != width { nodes = Array(repeating: .absent, count: width) }
      self.width = width
      let count = entries.count
      entries.withUnsafeBufferPointer { entries in
        nodes.withUnsafeMutableBufferPointer { nodes in
          // The level above the leaves reads the intervals, the others
          // their children.
          for node in stride(from: width - 1, through: width / 2, by: -1) {
            let first = 2 * node - width
            let left = first < count ? Bound(entries[first]) : .absent
            let right = first + 1 < count ? Bound(entries[first + 1]) : .absent
            nodes[node] = Bound.greater(left, right)
          }
          for node in stride(from: width / 2 - 1, through: 1, by: -1) {
            nodes[node] = Bound.greater(nodes[2 * node], nodes[2 * node + 1])
          }
        }
      }
    }

    /// Calls `body` with each of the first `end` entries (`end` at least 1)
    /// under a node whose greatest upper bound admits `key`: every interval
    /// among them whose upper bound admits it, and no other.
    @inline(__always)
    func visit(
      reaching key: RangeKey, below end: Int, of entries: UnsafeBufferPointer<Entry>, _ body: (Entry) -> Void
    ) {
      let width = width
      let depth = width.trailingZeroBitCount
      nodes.withUnsafeBufferPointer { nodes in
        // Depth-first, left to right, on a stack of node numbers: a node
        // pushes its two children, so the stack holds at most one node per
        // level beyond the current path (64 levels at most).
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * Int.bitWidth) { stack in
          stack[0] = 1
          var top = 1
          while top > 0 {
            top -= 1
            let node = stack[top]
            if node >= width {
              let entry = entries[node - width]
              if Bound(entry).admits(key) { body(entry) }
              continue
            }
            guard nodes[node].admits(key) else { continue }
            // The right child's first leaf must lie in the prefix; the left
            // child's is its parent's, which does.
            let right = 2 * node + 1
            let level = Int.bitWidth - 1 - right.leadingZeroBitCount
            if (right << (depth - level)) - width < end {
              stack[top] = right
              top += 1
            }
            stack[top] = 2 * node
            top += 1
          }
        }
      }
    }
  }
}
