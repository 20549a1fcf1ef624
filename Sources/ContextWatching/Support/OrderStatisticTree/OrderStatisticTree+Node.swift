extension OrderStatisticTree {
  // No run-time exclusivity checks on the stored properties: invariant 1 in
  // OrderStatisticTree.swift.
  final class Node {
    /// Elements below, in this node's subtree.
    @exclusivity(unchecked) var count: Int
    /// The sum of the weights of the elements below.
    @exclusivity(unchecked) var weight: Int
    /// A leaf's elements, in order; empty in an inner node.
    @exclusivity(unchecked) var elements: ContiguousArray<Element>
    /// An inner node's children, in order; empty in a leaf.
    @exclusivity(unchecked) var children: ContiguousArray<Node>
    /// Each child's `count` and `weight`, kept beside the children so that
    /// a position is summed from one contiguous array instead of a visit
    /// to every child before it (a cache miss each, in a large tree).
    /// Invariant: `counts[i] == children[i].count` and `weights[i] ==
    /// children[i].weight` whenever no mutation is in progress.
    @exclusivity(unchecked) var counts: ContiguousArray<Int>
    @exclusivity(unchecked) var weights: ContiguousArray<Int>
    /// The first element of each child, for choosing a child without
    /// descending into it.
    @exclusivity(unchecked) var firsts: ContiguousArray<Element>
    let isLeaf: Bool

    init(elements: ContiguousArray<Element>) {
      self.count = elements.count
      weight = elements.reduce(0) { $0 + $1.weight }
      self.elements = elements
      children = []
      counts = []
      weights = []
      firsts = []
      isLeaf = true
    }

    init(children: ContiguousArray<Node>) {
      counts = ContiguousArray(children.lazy.map(\.count))
      weights = ContiguousArray(children.lazy.map(\.weight))
      self.count = counts.reduce(0, +)
      weight = weights.reduce(0, +)
      self.children = children
      firsts = ContiguousArray(children.map(\.first))
      elements = []
      isLeaf = false
    }

    init(copying node: Node) {
      count = node.count
      weight = node.weight
      elements = node.elements
      children = node.children
      counts = node.counts
      weights = node.weights
      firsts = node.firsts
      isLeaf = node.isLeaf
    }

    func copy() -> Node { Node(copying: self) }

    /// The subtree's first element; the node must not be empty.
    var first: Element { isLeaf ? elements[0] : firsts[0] }

    /// Items: elements of a leaf, children of an inner node.
    var itemCount: Int { isLeaf ? elements.count : children.count }

    // The unchecked walks of `counts` and `weights` below: invariant 5 in
    // OrderStatisticTree.swift.

    /// The number of elements in the children before `index`.
    func count(before index: Int) -> Int {
      counts.withUnsafeBufferPointer { counts in
        var sum = 0
        for child in 0..<index { sum += counts[child] }
        return sum
      }
    }

    /// The sum of the weights of the children before `index`.
    func weight(before index: Int) -> Int {
      weights.withUnsafeBufferPointer { weights in
        var sum = 0
        for child in 0..<index { sum += weights[child] }
        return sum
      }
    }

    /// The child that holds the element at `offset` in this subtree;
    /// `offset` becomes the element's offset in that child.
    func childIndex(containing offset: inout Int) -> Int {
      counts.withUnsafeBufferPointer { counts in
        var index = 0
        while offset >= counts[index] {
          offset -= counts[index]
          index += 1
        }
        return index
      }
    }

    /// A leaf's elements in place, their storage not retained: for a
    /// search whose predicate calls code the optimizer cannot see into,
    /// which `withUnsafeBufferPointer` would retain the storage around (two
    /// atomic operations a node). Invariant 11 in OrderStatisticTree.swift.
    @inline(__always)
    var elementsInPlace: UnsafeBufferPointer<Element> { elements.withUnsafeBufferPointer { $0 } }

    /// An inner node's ``firsts`` in place, as ``elementsInPlace``.
    @inline(__always)
    var firstsInPlace: UnsafeBufferPointer<Element> { firsts.withUnsafeBufferPointer { $0 } }

    /// Child `index`, unretained: valid while this node holds it
    /// (invariants 2 and 5 in OrderStatisticTree.swift). Loaded as a plain
    /// word, so that no retain is made.
    @inline(__always)
    func unretainedChild(_ index: Int) -> Unmanaged<Node> {
      children.withUnsafeBufferPointer { children in
        precondition(index >= 0 && index < children.count, "child \(index) is out of range 0..<\(children.count)")
        return UnsafeRawPointer(children.baseAddress.unsafelyUnwrapped)
          .load(fromByteOffset: index * MemoryLayout<Node>.stride, as: Unmanaged<Node>.self)
      }
    }

    /// Reads child `index`'s count and weight into `counts` and `weights`.
    func refresh(_ index: Int) {
      // Invariant 2 in OrderStatisticTree.swift.
      let (count, weight) = unretainedChild(index)._withUnsafeGuaranteedRef { ($0.count, $0.weight) }
      counts[index] = count
      weights[index] = weight
    }

    /// Inserts `child` at `index`, with its count, weight and first element.
    func insertChild(_ child: Node, at index: Int) {
      children.insert(child, at: index)
      counts.insert(child.count, at: index)
      weights.insert(child.weight, at: index)
      firsts.insert(child.first, at: index)
    }

    /// Removes the child at `index`, with its count, weight and first
    /// element.
    func removeChild(at index: Int) {
      children.remove(at: index)
      counts.remove(at: index)
      weights.remove(at: index)
      firsts.remove(at: index)
    }

    /// The child whose subtree holds the partition point: the last child
    /// whose first element is before it (the first child when none is).
    @inline(__always)
    func childIndex(_ isBefore: (UnsafePointer<Element>) -> Bool) -> Int {
      // Invariants 2, 3 and 11 in OrderStatisticTree.swift.
      Swift.max(0, firstsInPlace.partitionPoint(isBefore) - 1)
    }

    /// The child that holds the element `isMatch` looks for at the
    /// partition point of `isBefore`: the partition point may be the end of
    /// one child and the match (an element sorts in one place only) the
    /// first element of the next.
    @inline(__always)
    func childIndex(
      _ isBefore: (UnsafePointer<Element>) -> Bool, matching isMatch: (UnsafePointer<Element>) -> Bool
    ) -> Int {
      let index = childIndex(isBefore)
      guard index + 1 < children.count else { return index }
      // Invariants 2, 3, 5 and 11 in OrderStatisticTree.swift.
      let nextIsMatch = isMatch(firstsInPlace.baseAddress.unsafelyUnwrapped + index + 1)
      return nextIsMatch ? index + 1 : index
    }
  }
}
