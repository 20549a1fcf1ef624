/// A sorted sequence with positions: a B+-tree whose nodes count the
/// elements below them, so that finding an element's position, the element
/// at a position, inserting and removing all take O(log *n*).
///
/// The tree is a value with copy-on-write nodes: a copy costs O(1), and a
/// mutation of one copy copies only the nodes on the path it changes
/// (O(log *n*) nodes), leaving every other copy as it was. A list monitor
/// hands a copy to each delivery as the list's content at that save.
///
/// The tree does not store its order. Each search takes a monotone
/// predicate, `isBefore`, that is true for a prefix of the elements in
/// order (the elements that sort before a probe) and false for the rest;
/// the caller must use one strict total order for every call.
///
/// Searches hand each predicate a pointer to the element in the node's
/// storage, valid for that call only: a predicate that reads a field
/// through it (`$0.pointee.key`) copies that field alone, where passing
/// the element would copy it whole, retaining each of its references.
struct OrderStatisticTree<Element: OrderStatisticElement> {
  /// The most elements in a leaf and the most children of an inner node.
  static var capacity: Int { 32 }
  /// A node with fewer items than this (except the root) is merged with a
  /// neighbour or takes items from it.
  static var minimumFill: Int { capacity / 4 }
  /// The most unused element slots a full leaf's storage gains when it
  /// grows: a leaf grows by this much instead of doubling, so that storage
  /// stays within a few elements of what the tree holds (a list's memory
  /// is mostly its leaves), at the cost of a reallocation (a move, no
  /// retain) every few inserts into one leaf.
  static var leafSlack: Int { 4 }

  // Internal, not private: the extensions in this folder (nodes, mutation,
  // iteration, invariants) reach it.
  var root: Node?

  /// Creates an empty tree.
  init() {}

  /// Creates a tree of `elements`, which must be in order.
  ///
  /// - Complexity: O(*n*).
  init(sorted elements: some Sequence<Element>) {
    var level: [Node] = []
    // Leaves seven-eighths full leave room for a few inserts each before
    // a split; their storage has room for two of them (see `leafSlack`),
    // so that the first insert into a leaf moves half of it and does not
    // copy all of it to new storage.
    let fill = Self.capacity * 7 / 8
    var leaf = ContiguousArray<Element>()
    leaf.reserveCapacity(fill + Self.leafSlack / 2)
    for element in elements {
      leaf.append(element)
      if leaf.count == fill {
        level.append(Node(elements: leaf))
        leaf = []
        leaf.reserveCapacity(fill + Self.leafSlack / 2)
      }
    }
    if !leaf.isEmpty || level.isEmpty { level.append(Node(elements: leaf)) }
    while level.count > 1 {
      var parents: [Node] = []
      var start = 0
      while start < level.count {
        let end = Swift.min(level.count, start + fill)
        parents.append(Node(children: ContiguousArray(level[start..<end])))
        start = end
      }
      level = parents
    }
    root = level[0].count == 0 ? nil : level[0]
  }

  /// The number of elements.
  var count: Int { root?.count ?? 0 }

  var isEmpty: Bool { root == nil }

  /// The element at `position`.
  ///
  /// - Precondition: `0 <= position < count`.
  /// - Complexity: O(log *n*).
  subscript(position: Int) -> Element {
    read(position) { $0.pointee }
  }

  /// Reads the element at `position` in place, through a pointer valid
  /// during `body`.
  ///
  /// - Precondition: `0 <= position < count`.
  /// - Complexity: O(log *n*).
  func read<Result>(_ position: Int, _ body: (UnsafePointer<Element>) -> Result) -> Result {
    let (leaf, offset) = leaf(containing: position)
    return leaf._withUnsafeGuaranteedRef { leaf in
      leaf.elements.withUnsafeBufferPointer { body($0.baseAddress.unsafelyUnwrapped + offset) }
    }
  }

  /// The leaf that holds the element at `position`, unretained (see
  /// ``descend(_:)``), and the element's offset in it.
  ///
  /// - Precondition: `0 <= position < count`.
  private func leaf(containing position: Int) -> (leaf: Unmanaged<Node>, offset: Int) {
    precondition(position >= 0 && position < count, "position \(position) is out of range 0..<\(count)")
    var offset = position
    let leaf = descend { $0.childIndex(containing: &offset) }
    return (leaf, offset)
  }

  /// Descends from the root to a leaf, `step` choosing the child of each
  /// inner node on the way, without retaining the nodes it passes.
  ///
  /// A retain and a release are atomic operations, each costing the time of
  /// dozens of plain instructions, and a read of a large list passes four
  /// nodes. The nodes stay valid unretained: the tree holds its root and
  /// each node its children, and no node changes while the tree is read, so
  /// the leaf is valid as long as the tree is neither mutated nor released.
  ///
  /// - Precondition: The tree is not empty.
  @inline(__always)
  private func descend(_ step: (Node) -> Int) -> Unmanaged<Node> {
    var node = Unmanaged.passUnretained(root.unsafelyUnwrapped)
    while let child = node._withUnsafeGuaranteedRef({ $0.isLeaf ? nil : $0.unretainedChild(step($0)) }) {
      node = child
    }
    return node
  }

  /// Reads the elements just before and just after `position` in place,
  /// each through a pointer valid during its call (nil past either end),
  /// in one descent when both are in the leaf that holds `position`.
  ///
  /// - Precondition: `0 <= position < count`.
  /// - Complexity: O(log *n*).
  func readNeighbours<Result>(
    of position: Int, _ body: (UnsafePointer<Element>?) -> Result
  ) -> (before: Result, after: Result) {
    let (leaf, offset) = leaf(containing: position)
    let inLeaf = leaf._withUnsafeGuaranteedRef { leaf in
      leaf.elements.withUnsafeBufferPointer { elements -> (before: Result, after: Result)? in
        guard offset > 0 && offset + 1 < elements.count else { return nil }
        let base = elements.baseAddress.unsafelyUnwrapped + offset
        return (body(base - 1), body(base + 1))
      }
    }
    if let inLeaf { return inLeaf }
    // At a leaf's edge: the other neighbour is in the next or previous leaf.
    let before = position > 0 ? read(position - 1) { body($0) } : body(nil)
    let after = position + 1 < count ? read(position + 1) { body($0) } : body(nil)
    return (before, after)
  }

  /// The partition point of `isBefore` (as ``partitionPoint(_:)``) with
  /// `body`'s reading of the element there, in place, in one descent.
  ///
  /// - Precondition: The partition point is less than `count`.
  /// - Complexity: O(log *n*) evaluations of `isBefore`.
  @inline(__always)
  func partitionPoint<Result>(
    _ isBefore: (UnsafePointer<Element>) -> Bool, reading body: (UnsafePointer<Element>) -> Result
  ) -> (position: Int, result: Result) {
    var position = 0
    let leaf = descend { node in
      let index = node.childIndex(isBefore)
      position += node.count(before: index)
      return index
    }
    let (offset, result) = leaf._withUnsafeGuaranteedRef { leaf -> (Int, Result?) in
      leaf.elements.withUnsafeBufferPointer { elements in
        let offset = elements.partitionPoint(isBefore)
        return (offset, offset < elements.count ? body(elements.baseAddress.unsafelyUnwrapped + offset) : nil)
      }
    }
    // Past the leaf's last element, the element there is the next leaf's
    // first.
    return (position + offset, result ?? read(position + offset, body))
  }

  /// The number of elements for which `isBefore` is true: the position of
  /// the first element for which it is false, or `count`.
  ///
  /// - Complexity: O(log *n*) evaluations of `isBefore`.
  @inline(__always)
  func partitionPoint(_ isBefore: (UnsafePointer<Element>) -> Bool) -> Int {
    guard root != nil else { return 0 }
    var position = 0
    let leaf = descend { node in
      let index = node.childIndex(isBefore)
      position += node.count(before: index)
      return index
    }
    return position + leaf._withUnsafeGuaranteedRef { $0.elements.partitionPoint(isBefore) }
  }

  /// Loads into the caches the whole leaf that each of `count` searches
  /// ends in, search `i` going by `isBefore(i, element)`; returns a sum of
  /// the bytes read, only so that the loads are kept.
  ///
  /// The searches descend first, a level at a time (the inner nodes, a
  /// small part of a tree, mostly stay in the caches), then every leaf is
  /// loaded in one loop of plain loads, so that their misses overlap: one
  /// search alone waits for each of its misses in turn, every step of it
  /// depending on the one before. The whole leaf, because an insertion or
  /// a removal there moves half of it. An inexact `isBefore` (one that
  /// decides ties either way) only loads a neighbouring leaf.
  ///
  /// - Complexity: O(*k* log *n*) for *k* searches.
  func touchLeaves(_ count: Int, _ isBefore: (Int, UnsafePointer<Element>) -> Bool) -> Int {
    guard let root, count > 0 else { return 0 }
    var nodes = [Unmanaged<Node>](filledWith: Unmanaged.passUnretained(root), count: count)
    while !nodes[0]._withUnsafeGuaranteedRef(\.isLeaf) {
      for search in 0..<count {
        nodes[search] = nodes[search]._withUnsafeGuaranteedRef { node in
          node.unretainedChild(node.childIndex { isBefore(search, $0) })
        }
      }
    }
    var loaded = 0
    for node in nodes {
      loaded &+= node._withUnsafeGuaranteedRef { leaf in
        leaf.elements.withUnsafeBytes { bytes in
          var sum = 0
          for offset in stride(from: 0, to: bytes.count, by: 64) { sum &+= Int(bytes[offset]) }
          return sum
        }
      }
    }
    return loaded
  }

  /// The sum of the weights of the elements before `position`.
  ///
  /// - Precondition: `0 <= position <= count`.
  /// - Complexity: O(log *n*).
  func weight(before position: Int) -> Int {
    precondition(position >= 0 && position <= count, "position \(position) is out of range 0...\(count)")
    guard let root else { return 0 }
    if position == count { return root.weight }
    var offset = position
    var sum = 0
    let leaf = descend { node in
      let index = node.childIndex(containing: &offset)
      sum += node.weight(before: index)
      return index
    }
    return leaf._withUnsafeGuaranteedRef { leaf in
      leaf.elements.withUnsafeBufferPointer { elements in
        var before = sum
        for element in 0..<offset { before += elements[element].weight }
        return before
      }
    }
  }

  /// The first position at which the sum of the weights up to and with
  /// the element there exceeds `weight`, and the sum of the weights before
  /// it: for elements that each count several things (a section's
  /// objects), the element that holds thing number `weight` and where its
  /// things start. Reads the weights alone (no comparison).
  ///
  /// - Precondition: `0 <= weight <` the sum of every element's weight.
  /// - Complexity: O(log *n*).
  func position(coveringWeight weight: Int) -> (position: Int, weightBefore: Int) {
    precondition(weight >= 0 && weight < (root?.weight ?? 0), "weight \(weight) is out of range")
    var position = 0
    var before = 0
    let leaf = descend { node in
      var index = 0
      node.weights.withUnsafeBufferPointer { weights in
        while before + weights[index] <= weight {
          before += weights[index]
          index += 1
        }
      }
      position += node.count(before: index)
      return index
    }
    var offset = 0
    leaf._withUnsafeGuaranteedRef { leaf in
      leaf.elements.withUnsafeBufferPointer { elements in
        while before + elements[offset].weight <= weight {
          before += elements[offset].weight
          offset += 1
        }
      }
    }
    return (position + offset, before)
  }

}

// @unchecked Sendable: a node reachable from more than one tree is never
// mutated (every mutation first makes each node on its path unshared, with
// `isKnownUniquelyReferenced`, copying it otherwise), so copies of a tree on
// different threads share only nodes that no one writes, as Array's
// copy-on-write storage does.
extension OrderStatisticTree: @unchecked Sendable where Element: Sendable {}
