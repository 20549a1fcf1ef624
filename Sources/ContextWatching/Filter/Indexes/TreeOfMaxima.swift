/// The shape shared by the range indexes' trees of maxima (`RangeIndex.MaximaTree`
/// over numbers and dates, `TextRangeIndex` over strings): an implicit
/// binary tree over a list of ranges sorted by lower bound, each node
/// summing up the run of ranges under it (its least lower bound and
/// greatest upper bound, in a form of the index's own), so that a search
/// skips every run that cannot hold a value.
///
/// The tree is laid out as a binary heap: node 1 is the root, node `j` has
/// children `2j` and `2j + 1`, and the nodes from `width` to
/// `2 * width - 1` are the ranges themselves (the leaves, never stored):
/// leaf `p` is range `p`. `width` is the least power of two at least
/// the number of ranges; positions past the last range are leaves
/// that hold nothing. The nodes are stored in an array of `width` elements,
/// element 0 unused.
///
/// Generic over the node, and always inlined, so that each index's walk
/// costs what one written out for its node would.
enum TreeOfMaxima {
  /// Lists up to this long are scanned, not searched: a tree costs more to
  /// keep than it saves.
  static let minimumCount = 16

  /// The number of leaves of a tree over `count` ranges (`count` ≥ 2):
  /// the least power of two at least `count`.
  @inline(__always)
  static func width(for count: Int) -> Int {
    1 << (Int.bitWidth - (count - 1).leadingZeroBitCount)
  }

  /// Fills `nodes` (as many as the leaves, element 0 unused) bottom up,
  /// O(n): the level above the leaves joins `leaf(p)` and `leaf(p + 1)`,
  /// each level above that the nodes below it. `leaf` is called with
  /// positions past the last range too, and gives an absent node there.
  @inline(__always)
  static func build<Node>(
    _ nodes: UnsafeMutableBufferPointer<Node>, leaf: (Int) -> Node, joining: (Node, Node) -> Node
  ) {
    let width = nodes.count
    for node in stride(from: width - 1, through: width / 2, by: -1) {
      let first = 2 * node - width
      nodes[node] = joining(leaf(first), leaf(first + 1))
    }
    for node in stride(from: width / 2 - 1, through: 1, by: -1) {
      nodes[node] = joining(nodes[2 * node], nodes[2 * node + 1])
    }
  }

  /// Searches a tree of `width` leaves (`width` ≥ 2) depth first, left to
  /// right: descends into each node for which `mayHold(node)` holds, and
  /// calls `leaf(p)` with both leaves under each node of the level above
  /// the leaves that it reaches, in order (positions past the last
  /// range included: `leaf` checks them).
  ///
  /// `mayHold` must hold for every node over a range that holds the
  /// value, and may hold for others: the search then reports a superset
  /// that `leaf` filters. With the greatest upper bound and least lower
  /// bound of each run, it visits O(log n) nodes for each range
  /// reported, and O(log n) when none is.
  @inline(__always)
  static func visit(width: Int, mayHold: (Int) -> Bool, leaf: (Int) -> Void) {
    guard mayHold(1) else { return }
    // A stack of node numbers: a node pushes its children, so the stack
    // holds at most one node per level beyond the current path (64
    // levels at most).
    withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * Int.bitWidth) { stack in
      stack[0] = 1
      var top = 1
      while top > 0 {
        top -= 1
        let left = 2 * stack[top]
        if left >= width {
          // The children are leaves: the ranges themselves.
          leaf(left - width)
          leaf(left - width + 1)
          continue
        }
        // The node may hold the value (checked before it was pushed).
        if mayHold(left + 1) {
          stack[top] = left + 1
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
