extension RangeIndex {
  /// A tree of maxima over a range index's ranges, sorted by lower
  /// bound: each node holds the greatest upper bound of the ranges under
  /// it, so that a search leaves at once every run of ranges that ends
  /// below a value, and the least lower bound (its first range's), so
  /// that it leaves every run that starts above the value without a
  /// binary search of the list first.
  ///
  /// The tree is implicit (`TreeOfMaxima`, the layout and the search it
  /// shares with `TextRangeIndex`): the leaves are the ranges of the
  /// sorted list, not stored. It stores `width - 1` nodes of 16 bytes, both
  /// bounds in one read, as doubles rounded outwards: at most 32 bytes an
  /// range. Building it is O(n), bottom up.
  ///
  /// A search visits the nodes whose run starts at or below the value and
  /// holds an upper bound that admits it. Such a node lies entirely within
  /// the prefix of ranges starting at or below the value, where it holds
  /// a match, or straddles the prefix's end, on the one path to it: O(log n)
  /// nodes for each range reported, and O(log n) when none is.
  ///
  /// Invariant: built over the list as it is now (same entries, same
  /// order), or not built (`isBuilt` false) and then never read.
  struct MaximaTree {
    /// Nodes 1 to `width - 1` (node 0 is unused); empty when not built.
    /// The one stored property: every range index, and so every key of an
    /// equality index (`MasterFilter.KeyedWatches`), holds a tree.
    private var nodes: [Node] = []
    /// The number of leaves, a power of two, as many as nodes (node 0
    /// unused); 0 when not built.
    private var width: Int { nodes.count }

    /// A run's least lower bound rounded down to a double and its greatest
    /// upper bound rounded up, both ends taken as included: 16 bytes, and
    /// two comparisons of doubles decide a node. The rounding makes a node
    /// admit every value its ranges admit and perhaps a few more (at
    /// bounds an integer beyond 2⁵³ away, or an excluded end): the leaves,
    /// decided exactly by `RangeBounds.contains`, drop those. A run of
    /// leaves past the last range is `absent`, which admits nothing.
    struct Node {
      private var lower: Double
      private var upper: Double

      /// Admits no value: greater lower bound than upper.
      static let absent = Node(lower: .infinity, upper: -.infinity)

      private init(lower: Double, upper: Double) {
        self.lower = lower
        self.upper = upper
      }

      /// The node of one range's entry.
      init(_ entry: Entry) {
        self.init(lower: entry.presentLower.roundedDown, upper: entry.presentUpper.roundedUp)
      }

      /// Whether some range of the run may hold a value whose
      /// `RangeKey.approximate` is `value` (never a NaN): the first starts
      /// at or below it and the greatest upper bound reaches it.
      @inline(__always)
      func mayHold(_ value: Double) -> Bool { lower <= value && value <= upper }

      /// The node over two runs: the lesser lower bound (the left's, as
      /// the list is sorted) and the greater upper bound.
      static func joining(_ left: Node, _ right: Node) -> Node {
        Node(lower: min(left.lower, right.lower), upper: max(left.upper, right.upper))
      }
    }

    /// Whether the tree is built (the list is longer than `minimumCount`).
    var isBuilt: Bool { width != 0 }

    /// Builds the tree over `entries`, sorted by lower bound; drops it when
    /// they are few.
    mutating func build(over entries: [Entry]) {
      guard entries.count > TreeOfMaxima.minimumCount else {
        if !nodes.isEmpty { nodes = [] }
        return
      }
      let width = TreeOfMaxima.width(for: entries.count)
      if nodes.count != width { nodes = Array(repeating: .absent, count: width) }
      entries.withUnsafeBufferPointer { entries in
        nodes.withUnsafeMutableBufferPointer { nodes in
          TreeOfMaxima.build(
            nodes, leaf: { $0 < entries.count ? Node(entries[$0]) : .absent }, joining: Node.joining)
        }
      }
    }

    /// Drops the tree, until the next `build`.
    mutating func drop() {
      if !nodes.isEmpty { nodes = [] }
    }

    /// Calls `body` with every entry (of the `count` the tree was built
    /// over) whose range holds `key`, and no other. `key` is not a NaN.
    @inline(__always)
    func visit(holding key: RangeKey, of entries: UnsafeBufferPointer<Entry>, _ body: (Entry) -> Void) {
      let value = key.approximate
      nodes.withUnsafeBufferPointer { nodes in
        TreeOfMaxima.visit(width: nodes.count, mayHold: { nodes[$0].mayHold(value) }) { leaf in
          if leaf < entries.count, entries[leaf].admits(key) { body(entries[leaf]) }
        }
      }
    }
  }
}
