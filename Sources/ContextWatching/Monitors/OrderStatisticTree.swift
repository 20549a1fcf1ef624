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

  private var root: Node?

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

  /// Inserts `element` at the partition point of `isBefore`, which must be
  /// where it belongs in the order.
  ///
  /// - Returns: The element's position.
  /// - Complexity: O(log *n*).
  @discardableResult
  mutating func insert(_ element: Element, at isBefore: (UnsafePointer<Element>) -> Bool) -> Int {
    guard root != nil else {
      root = Node(elements: [element])
      return 0
    }
    Self.unshare(&root!)
    let (position, split) = Self.insert(element, isBefore, into: Unmanaged.passUnretained(root.unsafelyUnwrapped))
    if let split {
      root = Node(children: [root!, split])
    }
    return position
  }

  /// Removes the element at the partition point of `isBefore` if `isMatch`
  /// holds for it.
  ///
  /// - Returns: The removed element's position and the element, or nil
  ///   when no element there matches.
  /// - Complexity: O(log *n*).
  @discardableResult
  mutating func remove(
    at isBefore: (UnsafePointer<Element>) -> Bool, where isMatch: (UnsafePointer<Element>) -> Bool
  ) -> (Int, Element)? {
    guard root != nil else { return nil }
    guard let removed = Self.remove(isBefore, isMatch, from: &root!) else { return nil }
    if root!.count == 0 {
      root = nil
    } else if !root!.isLeaf && root!.children.count == 1 {
      root = root!.children[0]
    }
    return removed
  }

  /// Replaces the element at the partition point of `isBefore`, which must
  /// match `isMatch`, with `update`'s result; the result must sort in the
  /// same place.
  ///
  /// - Returns: The element's position, or nil when no element there
  ///   matches.
  @discardableResult
  mutating func update(
    at isBefore: (UnsafePointer<Element>) -> Bool, where isMatch: (UnsafePointer<Element>) -> Bool,
    _ update: (inout Element) -> Void
  ) -> Int? {
    guard root != nil else { return nil }
    return Self.update(isBefore, isMatch, update, in: &root!)?.position
  }

  /// Removes and returns the element at `position`, finding it by the
  /// counts alone (no comparison).
  ///
  /// - Precondition: `0 <= position < count`.
  /// - Complexity: O(log *n*).
  @discardableResult
  mutating func remove(at position: Int) -> Element {
    precondition(position >= 0 && position < count, "position \(position) is out of range 0..<\(count)")
    Self.unshare(&root!)
    let element = Self.remove(at: position, from: Unmanaged.passUnretained(root.unsafelyUnwrapped))
    if root!.count == 0 {
      root = nil
    } else if !root!.isLeaf && root!.children.count == 1 {
      root = root!.children[0]
    }
    return element
  }

  /// Replaces the element at `position` with `update`'s result, finding it
  /// by the counts alone; the result must sort in the same place.
  ///
  /// - Precondition: `0 <= position < count`.
  /// - Complexity: O(log *n*).
  mutating func update(at position: Int, _ update: (inout Element) -> Void) {
    precondition(position >= 0 && position < count, "position \(position) is out of range 0..<\(count)")
    Self.unshare(&root!)
    Self.update(at: position, update, in: Unmanaged.passUnretained(root.unsafelyUnwrapped))
  }

  // MARK: Nodes

  // The stored properties skip dynamic exclusivity checks: a node is
  // written only by the tree that holds it alone (each mutation first makes
  // the nodes on its path unshared, see `unshare`), inside one of the
  // tree's `mutating` methods, which the tree's own (static) exclusivity
  // makes the only access to that tree; and no method writes a node's
  // property while a read or write of the same property of the same node
  // is in progress (a recursive call writes the child, not the parent).
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

    private init(copying node: Node) {
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

    /// Child `index`, unretained: valid while this node holds it (see
    /// ``OrderStatisticTree/descend(_:)``). Loaded as a plain word, so that
    /// no retain is made.
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
      Swift.max(0, firsts.partitionPoint(isBefore) - 1)
    }
  }

  /// Makes `node` unshared, copying it if another tree holds it.
  private static func unshare(_ node: inout Node) {
    if !isKnownUniquelyReferenced(&node) { node = node.copy() }
  }

  // The mutations below descend with each node unretained (as reads do,
  // see `descend(_:)`): a node is made unshared by its parent (the root by
  // the tree) before the descent reaches it, so the tree holds it alone
  // and nothing releases it while the mutation runs.
  private static func insert(
    _ element: Element, _ isBefore: (UnsafePointer<Element>) -> Bool, into node: Unmanaged<Node>
  ) -> (position: Int, split: Node?) {
    node._withUnsafeGuaranteedRef { node in
      node.count += 1
      node.weight += element.weight
      if node.isLeaf {
        let index = node.elements.partitionPoint(isBefore)
        if node.elements.count == node.elements.capacity {
          node.elements.reserveCapacity(Swift.min(node.elements.count + leafSlack, capacity + 1))
        }
        insert(element, at: index, into: &node.elements)
        return (index, splitIfFull(node))
      }
      let index = node.childIndex(isBefore)
      let position = node.count(before: index)
      unshare(&node.children[index])
      let (inner, split) = insert(element, isBefore, into: node.unretainedChild(index))
      node.refresh(index)
      // The child's first element changes only when the element goes first.
      if inner == 0 { node.firsts[index] = node.children[index].first }
      if let split { node.insertChild(split, at: index + 1) }
      return (position + inner, splitIfFull(node))
    }
  }

  /// Inserts `element` at `index` of `elements` by appending it and moving
  /// it into place: the elements after `index` are moved up one slot as
  /// bytes (no retain, no release), where `ContiguousArray.insert(_:at:)`
  /// goes through its general `replaceSubrange`.
  @inline(__always)
  private static func insert(_ element: Element, at index: Int, into elements: inout ContiguousArray<Element>) {
    elements.append(element)
    let last = elements.count - 1
    guard index < last else { return }
    elements.withUnsafeMutableBufferPointer { buffer in
      // Every slot of `buffer` is initialized before and after: the
      // appended element is moved out of the last slot, the elements from
      // `index` on are moved up into the slots after them (leaving slot
      // `index` uninitialized), and the element is moved into slot `index`.
      let base = buffer.baseAddress.unsafelyUnwrapped
      let moved = (base + last).move()
      (base + index + 1).moveInitialize(from: base + index, count: last - index)
      (base + index).initialize(to: moved)
    }
  }

  /// Splits an overfull node in two halves: `node` keeps the first, the
  /// second is returned.
  private static func splitIfFull(_ node: Node) -> Node? {
    guard node.itemCount > capacity else { return nil }
    let half = node.itemCount / 2
    if node.isLeaf {
      var elements = ContiguousArray<Element>()
      elements.reserveCapacity(node.itemCount - half + leafSlack / 2)
      elements.append(contentsOf: node.elements[half...])
      let right = Node(elements: elements)
      node.elements.removeSubrange(half...)
      node.count = node.elements.count
      node.weight -= right.weight
      return right
    }
    let right = Node(children: ContiguousArray(node.children[half...]))
    node.children.removeSubrange(half...)
    node.counts.removeSubrange(half...)
    node.weights.removeSubrange(half...)
    node.firsts.removeSubrange(half...)
    node.count -= right.count
    node.weight -= right.weight
    return right
  }

  private static func remove(
    _ isBefore: (UnsafePointer<Element>) -> Bool, _ isMatch: (UnsafePointer<Element>) -> Bool, from node: inout Node
  ) -> (Int, Element)? {
    if node.isLeaf {
      let index = node.elements.partitionPoint(isBefore)
      guard index < node.elements.count,
        node.elements.withUnsafeBufferPointer({ isMatch($0.baseAddress.unsafelyUnwrapped + index) })
      else {
        return nil
      }
      unshare(&node)
      node.count -= 1
      let element = node.elements.remove(at: index)
      node.weight -= element.weight
      return (index, element)
    }
    var index = node.childIndex(isBefore)
    // The partition point may be the end of one child and the match (an
    // element sorts in one place only) the first element of the next.
    if index + 1 < node.children.count,
      node.firsts.withUnsafeBufferPointer({ isMatch($0.baseAddress.unsafelyUnwrapped + index + 1) })
    {
      index += 1
    }
    unshare(&node)
    var position = 0
    position += node.count(before: index)
    guard let (inner, element) = remove(isBefore, isMatch, from: &node.children[index]) else { return nil }
    node.count -= 1
    node.weight -= element.weight
    node.refresh(index)
    // The child's first element changes only when its first one goes.
    if inner == 0 && node.children[index].count > 0 { node.firsts[index] = node.children[index].first }
    rebalance(node, child: index)
    return (position + inner, element)
  }

  private static func remove(at position: Int, from node: Unmanaged<Node>) -> Element {
    node._withUnsafeGuaranteedRef { node in
      node.count -= 1
      if node.isLeaf {
        let element = node.elements.remove(at: position)
        node.weight -= element.weight
        return element
      }
      var offset = position
      let index = node.childIndex(containing: &offset)
      unshare(&node.children[index])
      let element = remove(at: offset, from: node.unretainedChild(index))
      node.weight -= element.weight
      node.refresh(index)
      // The child's first element changes only when its first one goes.
      if offset == 0 && node.counts[index] > 0 { node.firsts[index] = node.children[index].first }
      rebalance(node, child: index)
      return element
    }
  }

  /// Updates the element at `position` below `node`; returns the change of
  /// its weight.
  @discardableResult
  private static func update(at position: Int, _ update: (inout Element) -> Void, in node: Unmanaged<Node>) -> Int {
    node._withUnsafeGuaranteedRef { node in
      if node.isLeaf {
        // In place through a pointer: reading `elements[position]` for its
        // weight would copy the element, retaining each of its references.
        let change = node.elements.withUnsafeMutableBufferPointer { elements in
          let element = elements.baseAddress.unsafelyUnwrapped + position
          let before = element.pointee.weight
          update(&element.pointee)
          return element.pointee.weight - before
        }
        node.weight += change
        return change
      }
      var offset = position
      let index = node.childIndex(containing: &offset)
      unshare(&node.children[index])
      let change = Self.update(at: offset, update, in: node.unretainedChild(index))
      // The child's first element changes only when the update is to it.
      if offset == 0 { node.firsts[index] = node.children[index].first }
      node.weight += change
      node.weights[index] += change
      return change
    }
  }

  /// Keeps a child of `node` at least `minimumFill` full: an empty child
  /// goes, an underfull one takes items from a neighbour or merges with it.
  private static func rebalance(_ node: Node, child index: Int) {
    if node.counts[index] == 0 {
      node.removeChild(at: index)
      return
    }
    guard node.unretainedChild(index)._withUnsafeGuaranteedRef({ $0.itemCount < minimumFill }),
      node.children.count > 1
    else { return }
    let left = index > 0 ? index - 1 : index
    unshare(&node.children[left])
    unshare(&node.children[left + 1])
    let (a, b) = (node.children[left], node.children[left + 1])
    if a.itemCount + b.itemCount <= capacity {
      // Merge b into a.
      if a.isLeaf {
        a.elements.append(contentsOf: b.elements)
      } else {
        a.children.append(contentsOf: b.children)
        a.counts.append(contentsOf: b.counts)
        a.weights.append(contentsOf: b.weights)
        a.firsts.append(contentsOf: b.firsts)
      }
      a.count += b.count
      a.weight += b.weight
      node.removeChild(at: left + 1)
      node.refresh(left)
      return
    }
    // Share the items of a and b evenly.
    let total = a.itemCount + b.itemCount
    let keep = total / 2
    if a.isLeaf {
      var all = a.elements
      all.append(contentsOf: b.elements)
      a.elements = ContiguousArray(all[..<keep])
      b.elements = ContiguousArray(all[keep...])
      a.count = a.elements.count
      b.count = b.elements.count
      a.weight = a.elements.reduce(0) { $0 + $1.weight }
      b.weight = b.elements.reduce(0) { $0 + $1.weight }
    } else {
      var all = a.children
      all.append(contentsOf: b.children)
      var firsts = a.firsts
      firsts.append(contentsOf: b.firsts)
      a.children = ContiguousArray(all[..<keep])
      b.children = ContiguousArray(all[keep...])
      a.firsts = ContiguousArray(firsts[..<keep])
      b.firsts = ContiguousArray(firsts[keep...])
      a.counts = ContiguousArray(a.children.lazy.map(\.count))
      b.counts = ContiguousArray(b.children.lazy.map(\.count))
      a.weights = ContiguousArray(a.children.lazy.map(\.weight))
      b.weights = ContiguousArray(b.children.lazy.map(\.weight))
      a.count = a.counts.reduce(0, +)
      b.count = b.counts.reduce(0, +)
      a.weight = a.weights.reduce(0, +)
      b.weight = b.weights.reduce(0, +)
    }
    node.refresh(left)
    node.refresh(left + 1)
    node.firsts[left] = a.first
    node.firsts[left + 1] = b.first
  }

  private static func update(
    _ isBefore: (UnsafePointer<Element>) -> Bool, _ isMatch: (UnsafePointer<Element>) -> Bool,
    _ update: (inout Element) -> Void,
    in node: inout Node
  ) -> (position: Int, weightChange: Int)? {
    if node.isLeaf {
      let index = node.elements.partitionPoint(isBefore)
      guard index < node.elements.count,
        node.elements.withUnsafeBufferPointer({ isMatch($0.baseAddress.unsafelyUnwrapped + index) })
      else {
        return nil
      }
      unshare(&node)
      let before = node.elements[index].weight
      update(&node.elements[index])
      let change = node.elements[index].weight - before
      node.weight += change
      return (index, change)
    }
    var index = node.childIndex(isBefore)
    if index + 1 < node.children.count,
      node.firsts.withUnsafeBufferPointer({ isMatch($0.baseAddress.unsafelyUnwrapped + index + 1) })
    {
      index += 1
    }
    unshare(&node)
    let position = node.count(before: index)
    guard let (inner, change) = Self.update(isBefore, isMatch, update, in: &node.children[index]) else { return nil }
    // The child's first element changes only when the update is to it.
    if inner == 0 { node.firsts[index] = node.children[index].first }
    node.weight += change
    node.weights[index] += change
    return (position + inner, change)
  }
}

extension Array {
  /// An array of `count` copies of `value`, as `init(repeating:count:)`
  /// makes, through the standard library's inlinable initializer: that one
  /// allocates through an entry point that is not specialized for
  /// `Element`, which looks the storage's type up at run time (some 600
  /// instructions, more than the small arrays of a list's save cost
  /// otherwise).
  @inline(__always)
  init(filledWith value: Element, count: Int) {
    self.init(unsafeUninitializedCapacity: count) { buffer, initialized in
      buffer.initialize(repeating: value)
      initialized = count
    }
  }
}

// @unchecked Sendable: a node reachable from more than one tree is never
// mutated (every mutation first makes each node on its path unshared, with
// `isKnownUniquelyReferenced`, copying it otherwise), so copies of a tree on
// different threads share only nodes that no one writes, as Array's
// copy-on-write storage does.
extension OrderStatisticTree: @unchecked Sendable where Element: Sendable {}

extension OrderStatisticTree: Sequence {
  /// Iterates the elements in order.
  struct Iterator: IteratorProtocol {
    private var stack: [(node: Node, next: Int)]

    init(root: Node?) { stack = root.map { [($0, 0)] } ?? [] }

    mutating func next() -> Element? {
      while let (node, next) = stack.last {
        if node.isLeaf {
          guard next < node.elements.count else {
            stack.removeLast()
            continue
          }
          stack[stack.count - 1].next += 1
          return node.elements[next]
        }
        guard next < node.children.count else {
          stack.removeLast()
          continue
        }
        stack[stack.count - 1].next += 1
        stack.append((node.children[next], 0))
      }
      return nil
    }
  }

  func makeIterator() -> Iterator { Iterator(root: root) }

  var underestimatedCount: Int { count }
}

extension OrderStatisticTree {
  /// Checks the tree's invariants (counts, firsts, fill, order under
  /// `isInOrder`), for tests.
  func checkInvariants(_ isInOrder: (Element, Element) -> Bool) -> Bool {
    guard let root else { return true }
    func check(_ node: Node, isRoot: Bool) -> Bool {
      if !isRoot && node.itemCount == 0 { return false }
      if node.itemCount > Self.capacity { return false }
      if node.isLeaf {
        return node.count == node.elements.count && node.weight == node.elements.reduce(0) { $0 + $1.weight }
      }
      guard node.weight == node.children.reduce(0, { $0 + $1.weight }) else { return false }
      guard node.counts.elementsEqual(node.children.lazy.map(\.count)),
        node.weights.elementsEqual(node.children.lazy.map(\.weight))
      else { return false }
      guard node.count == node.children.reduce(0, { $0 + $1.count }), node.firsts.count == node.children.count
      else { return false }
      for (child, first) in zip(node.children, node.firsts) {
        guard check(child, isRoot: false), isInOrder(child.first, first) && isInOrder(first, child.first)
        else { return false }
      }
      return true
    }
    guard check(root, isRoot: true) else { return false }
    var previous: Element?
    for element in self {
      if let previous, !isInOrder(previous, element) { return false }
      previous = element
    }
    return true
  }
}
