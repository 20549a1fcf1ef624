extension RangeIndex {
  /// A tree of maxima over a range index's intervals, sorted by lower
  /// bound: each node holds the greatest upper bound of the intervals under
  /// it, so that a search leaves at once every run of intervals that ends
  /// below a value, and the least lower bound (its first interval's), so
  /// that it leaves every run that starts above the value without a
  /// binary search of the list first.
  ///
  /// The tree is implicit, as in a binary heap: node 1 is the root, node
  /// `j` has children `2j` and `2j + 1`, and the nodes from `width` to
  /// `2 * width - 1` are the intervals themselves (the leaves, read from
  /// the sorted list, not stored). `width` is the least power of two at
  /// least the number of intervals; leaves past the last interval hold no
  /// bound. So the tree stores `width - 1` nodes of 24 bytes, both bounds
  /// in one read: at most 48 bytes an interval. Building it is O(n),
  /// bottom up.
  ///
  /// A search visits the nodes whose run starts at or below the value and
  /// holds an upper bound that admits it. Such a node lies entirely within
  /// the prefix of intervals starting at or below the value, where it holds
  /// a match, or straddles the prefix's end, on the one path to it: O(log n)
  /// nodes for each interval reported, and O(log n) when none is.
  ///
  /// Invariant: built over the list as it is now (same entries, same
  /// order), or not built (`isBuilt` false) and then never read.
  struct Reach {
    /// Lists up to this long are scanned, not searched: a tree costs more
    /// to keep than it saves.
    static let minimumCount = 16

    /// Nodes 1 to `width - 1` (node 0 is unused); empty when not built.
    /// The one stored property: every range index, and so every key of an
    /// equality index (`MasterFilter.KeyedWatches`), holds a tree.
    private var nodes: [Node] = []
    /// The number of leaves, a power of two, as many as nodes (node 0
    /// unused); 0 when not built.
    private var width: Int { nodes.count }

    /// A run's greatest upper bound (and whether it is included) and least
    /// lower bound; `isPresent` false for a run of leaves past the last
    /// interval, which admits nothing.
    struct Node {
      private var upperBits: UInt64
      private var lowerBits: UInt64
      private var flags: Flags

      private struct Flags: OptionSet {
        let rawValue: UInt8
        static let isPresent = Flags(rawValue: 1)
        static let upperIsDouble = Flags(rawValue: 2)
        static let upperIncluded = Flags(rawValue: 4)
        static let lowerIsDouble = Flags(rawValue: 8)
      }

      static let absent = Node(upperBits: 0, lowerBits: 0, flags: [])

      private init(upperBits: UInt64, lowerBits: UInt64, flags: Flags) {
        self.upperBits = upperBits
        self.lowerBits = lowerBits
        self.flags = flags
      }

      /// The node of one interval's entry.
      init(_ entry: Entry) {
        let (upper, lower) = (entry.presentUpper, entry.presentLower)
        var flags: Flags = .isPresent
        if upper.isDouble { flags.insert(.upperIsDouble) }
        if entry.upperIncluded { flags.insert(.upperIncluded) }
        if lower.isDouble { flags.insert(.lowerIsDouble) }
        self.init(upperBits: upper.bits, lowerBits: lower.bits, flags: flags)
      }

      var isPresent: Bool { flags.contains(.isPresent) }
      private var upper: RangeKey { RangeKey(bits: upperBits, isDouble: flags.contains(.upperIsDouble)) }
      private var lower: RangeKey { RangeKey(bits: lowerBits, isDouble: flags.contains(.lowerIsDouble)) }

      /// Whether some interval of the run may hold `key`: the first starts
      /// at or below it and the greatest upper bound admits it.
      @inline(__always)
      func mayHold(_ key: RangeKey) -> Bool {
        guard isPresent, let start = RangeKey.order(lower, key), start <= 0,
          let end = RangeKey.order(key, upper)
        else { return false }
        return end < 0 || (end == 0 && flags.contains(.upperIncluded))
      }

      /// The node over two runs, `left` before `right`: the left's lower
      /// bound (the list is sorted) and the greater upper bound (the one
      /// that admits every value the other admits; at equal keys, the
      /// included one).
      static func joining(_ left: Node, _ right: Node) -> Node {
        guard left.isPresent else { return left }
        guard right.isPresent else { return left }
        let order = RangeKey.order(left.upper, right.upper) ?? 0
        let takesRight = order < 0 || (order == 0 && !left.flags.contains(.upperIncluded))
        guard takesRight else { return left }
        var flags = left.flags.subtracting([.upperIsDouble, .upperIncluded])
        flags.formUnion(right.flags.intersection([.upperIsDouble, .upperIncluded]))
        return Node(upperBits: right.upperBits, lowerBits: left.lowerBits, flags: flags)
      }
    }

    /// Whether the tree is built (the list is longer than `minimumCount`).
    var isBuilt: Bool { width != 0 }

    /// Builds the tree over `entries`, sorted by lower bound; drops it when
    /// they are few.
    mutating func build(over entries: [Entry]) {
      guard entries.count > Self.minimumCount else {
        if !nodes.isEmpty { nodes = [] }
        return
      }
      let width = 1 << (Int.bitWidth - (entries.count - 1).leadingZeroBitCount)
      if nodes.count != width { nodes = Array(repeating: .absent, count: width) }
      let count = entries.count
      entries.withUnsafeBufferPointer { entries in
        nodes.withUnsafeMutableBufferPointer { nodes in
          // The level above the leaves reads the intervals, the others
          // their children.
          for node in stride(from: width - 1, through: width / 2, by: -1) {
            let first = 2 * node - width
            let left = first < count ? Node(entries[first]) : .absent
            let right = first + 1 < count ? Node(entries[first + 1]) : .absent
            nodes[node] = Node.joining(left, right)
          }
          for node in stride(from: width / 2 - 1, through: 1, by: -1) {
            nodes[node] = Node.joining(nodes[2 * node], nodes[2 * node + 1])
          }
        }
      }
    }

    /// Calls `body` with every entry (of the `count` the tree was built
    /// over) whose interval holds `key`, and no other.
    @inline(__always)
    func visit(holding key: RangeKey, of entries: UnsafeBufferPointer<Entry>, _ body: (Entry) -> Void) {
      nodes.withUnsafeBufferPointer { nodes in
        let width = nodes.count
        guard nodes[1].mayHold(key) else { return }
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
              let leaf = node - width
              if leaf < entries.count, entries[leaf].admits(key) { body(entries[leaf]) }
              continue
            }
            // The node may hold the key (checked before it was pushed).
            let (left, right) = (2 * node, 2 * node + 1)
            if right >= width || nodes[right].mayHold(key) {
              stack[top] = right
              top += 1
            }
            if left >= width || nodes[left].mayHold(key) {
              stack[top] = left
              top += 1
            }
          }
        }
      }
    }
  }
}
