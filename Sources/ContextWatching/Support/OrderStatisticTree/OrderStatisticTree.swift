// The order-statistics tree's unsafe code, and that of the list monitor's
// internals that search it (`ListOrder`, `ListState`, `ListProbe`). Every
// unsafe invariant of the tree and of those internals is listed here; the
// code that relies on one names it ("invariant 2 in
// OrderStatisticTree.swift").
//
// 1. A node is written only while one tree holds it alone. Every mutation
//    first makes each node on its path unshared (`unshare`, which copies a
//    node unless `isKnownUniquelyReferenced`), inside one of the tree's
//    `mutating` methods, which the tree's own (static) exclusivity makes the
//    only access to that tree; and no method writes a node's property while
//    a read or write of the same property of the same node is in progress (a
//    recursive call writes the child, not the parent). So `Node`'s stored
//    properties skip run-time exclusivity checks (`@exclusivity(unchecked)`),
//    and the tree is `@unchecked Sendable`: copies of a tree on different
//    threads share only nodes that no one writes, as Array's copy-on-write
//    storage does.
// 2. An `Unmanaged<Node>` borrows its node without a retain
//    (`passUnretained`, `unretainedChild`, `_withUnsafeGuaranteedRef`), and
//    none outlives the call into the tree that made it except a
//    `LeafMark`'s (invariant 10). The tree holds its
//    root and each inner node its children: a read changes no node, so every
//    node it passes stays alive while the tree is neither mutated nor
//    released; a mutation makes each node unshared (the root by the tree, a
//    child by its parent) before its descent reaches it, and no parent
//    replaces that child until the descent returns, so the tree holds it
//    alone and nothing releases it. `unretainedChild` loads a child's reference as a plain
//    word, which is an `Unmanaged<Node>`'s layout, after checking its index
//    against the children.
// 3. A pointer to an element that a search or a read hands to a closure (a
//    predicate, `isMatch`, `body`, `update`; the tree's, and
//    `partitionPoint(_:)` on a buffer or an array) points into the storage
//    it searches, inside that storage's `withUnsafe(Mutable)BufferPointer`
//    or a buffer from `elementsInPlace` or `firstsInPlace` (invariant 11),
//    and is valid during that call only: a closure reads fields through it
//    or copies the element out (an `update` writes that element alone),
//    never keeps the pointer, and does not reach the tree it searches.
// 4. `root.unsafelyUnwrapped` only in a tree that is not empty: after
//    checking a position against `count`, `root` against nil, or a weight
//    against the root's; in `partitionPoint(_:readingLeaf:)` by its precondition
//    (a partition point below `count`), which `ListState.member` meets by
//    searching only for an object its value table holds, and so the list.
// 5. Offsets stay inside a node's buffers. `baseAddress.unsafelyUnwrapped +
//    offset` comes after a check of the offset (or of the position the
//    descent turned into it) against the buffer's count, so the buffer is
//    not empty. The unchecked walks of an inner node's `counts` and
//    `weights` (`childIndex(containing:)`, `position(coveringWeight:)`,
//    `count(before:)` and `weight(before:)` up to a child's index), and of a
//    leaf's elements after them, stop inside: an inner node's counts and
//    weights sum to its own `count` and `weight` (every mutation restores
//    that before it returns, see `Node.counts`), and the offset or weight
//    sought is below those. `firsts` has an entry for each child.
// 6. Every leaf is at the same depth: `init(sorted:)` builds the tree a
//    level at a time, and its height changes only at the root (a split root
//    gets a new parent; a root with one child is replaced by it).
//    `touchLeaves` descends all its searches a level at a time and stops
//    when the first is at a leaf.
// 7. `insert(_:at:into:)` moves a leaf's elements as bytes: every slot of
//    the buffer is initialized before and after (the appended element is
//    moved out of the last slot, the elements from `index` on are moved up
//    one slot, leaving slot `index` uninitialized, and the element is moved
//    into slot `index`).
// 8. The list's pointers to objects and values at hand live inside the call
//    that made them: a `ListProbe` is made and used inside the
//    `withUnsafeBufferPointer` of the arrays it points into
//    (`ListState.withProbe`), a pointer from `withUnsafePointer(to:)` inside
//    that call, and `ListState.sorted(_:by:)` compares through pointers to
//    its objects' buffer at positions below its count. A probe's arrays are
//    a listed object's `snapshot.values` and its derived values in the
//    order's `ListDerivedValues` (`load` and `remember` store both whenever
//    the list takes the object in or updates it; `withProbe` traps when the
//    derived values are missing), so a slot or path a sort key reads is in
//    range for the probe as it is for the object's snapshot and the edit's
//    derived values, whose reads are checked.
// 9. `ListEdit.new.unsafelyUnwrapped` in `ListState`, and an edit read as
//    sort values (`ListEdit: ListSortValues`), only for an edit with a
//    new object: after checking it (`hasNew`, `!= nil`); for a touched
//    object that is not repositioned (only an object listed before and after
//    the edits, in place, is not); for one with a rank after the edits
//    (`ranksAfterEdits` ranks only objects with a new object).
//    `Touched.old.unsafelyUnwrapped` only for an object with an old index
//    path and none after: it has no new object or is out of the window,
//    and `prepare` keeps `old` for an object without a new one and in a
//    list with a window (an offset or a limit).
// 10. A `LeafMark` (`touchLeaves`) holds a leaf unretained past the call
//    that made it: it is used only while the tree is neither mutated nor
//    released, which keeps every node alive and in place (invariant 2). The
//    list makes its marks in `ListState.prepare`, a non-mutating method,
//    and drops them there. Its start is the number of elements before the
//    leaf, summed from the counts on the way down (invariant 5).
// 11. `Node.elementsInPlace` and `firstsInPlace` hand out a node's buffer
//    past the `withUnsafeBufferPointer` call that made it, its storage not
//    retained. This goes beyond that method's documented contract (the
//    pointer is valid during the call): it relies on a `ContiguousArray`'s
//    native storage staying where it is, and alive, while the array that
//    holds it is neither written nor released, as the storage is the
//    array's one reference. The buffer is used only while its node holds
//    that array unchanged and stays alive (invariants 2 and 10): a read
//    writes no node and its closures do not reach the tree (invariants 1
//    and 3); a mutation's `childIndex` returns an index before the node is
//    unshared or written, and an insertion finds its place in a leaf before
//    it writes the leaf's elements.
// 12. `ListState.insert` borrows the list's `ListOrder` unretained
//    (`Unmanaged.passUnretained`) for its comparisons: `ListContent.order`
//    is a `let`, and the insertion changes only `content.objects`, so the
//    content holds the order through the call.

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
    // Invariants 2, 3 and 5 above.
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
  /// nodes. The leaf is valid as long as the tree is neither mutated nor
  /// released.
  ///
  /// - Precondition: The tree is not empty.
  @inline(__always)
  private func descend(_ step: (Node) -> Int) -> Unmanaged<Node> {
    // Invariants 2 and 4 above.
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
    // Invariants 2, 3 and 5 above.
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
    // Invariants 3 and 5 above.
    partitionPoint(isBefore) { elements, offset in body(elements.baseAddress.unsafelyUnwrapped + offset) }
  }

  /// The partition point of `isBefore` (as ``partitionPoint(_:)``) with
  /// `body`'s reading of the leaf that holds the element there, in place:
  /// the leaf's elements and the element's offset among them, so that
  /// `body` may read its neighbours in the leaf too.
  ///
  /// - Precondition: The partition point is less than `count`.
  /// - Complexity: O(log *n*) evaluations of `isBefore`.
  @inline(__always)
  func partitionPoint<Result>(
    _ isBefore: (UnsafePointer<Element>) -> Bool, readingLeaf body: (UnsafeBufferPointer<Element>, Int) -> Result
  ) -> (position: Int, result: Result) {
    var position = 0
    let leaf = descend { node in
      let index = node.childIndex(isBefore)
      position += node.count(before: index)
      return index
    }
    // Invariants 2, 3, 5 and 11 above; the descent, invariant 4.
    let (offset, result) = leaf._withUnsafeGuaranteedRef { leaf -> (Int, Result?) in
      let elements = leaf.elementsInPlace
      let offset = elements.partitionPoint(isBefore)
      return (offset, offset < elements.count ? body(elements, offset) : nil)
    }
    if let result { return (position + offset, result) }
    // Past the leaf's last element, the element there is the next leaf's
    // first.
    let (next, nextOffset) = self.leaf(containing: position + offset)
    return (
      position + offset, next._withUnsafeGuaranteedRef { $0.elements.withUnsafeBufferPointer { body($0, nextOffset) } }
    )
  }

  /// A leaf that a search reached, unretained, and the position of its
  /// first element in the tree: valid while the tree is neither mutated
  /// nor released (invariant 10 above).
  struct LeafMark {
    let leaf: Unmanaged<Node>
    let start: Int
  }

  /// The partition point of `isBefore` with `body`'s reading of the leaf
  /// of `mark` and its offset there, when it falls at or before that
  /// leaf's last element; nil when it does not (it may be in a later
  /// leaf).
  /// `body` may also answer nil (for an element that is not the one
  /// sought, which a leaf found by an inexact search may not hold).
  ///
  /// The position is the partition point only when `mark`'s leaf holds
  /// it: the search reads that leaf alone, so a caller that needs it
  /// exact checks the element `body` reads (an element of which only one
  /// sorts there).
  @inline(__always)
  func partitionPoint<Result>(
    in mark: LeafMark, _ isBefore: (UnsafePointer<Element>) -> Bool,
    readingLeaf body: (UnsafeBufferPointer<Element>, Int) -> Result?
  ) -> (position: Int, result: Result)? {
    // Invariants 3, 5, 10 and 11 above.
    mark.leaf._withUnsafeGuaranteedRef { leaf -> (position: Int, result: Result)? in
      let elements = leaf.elementsInPlace
      let offset = elements.partitionPoint(isBefore)
      guard offset < elements.count, let result = body(elements, offset) else { return nil }
      return (mark.start + offset, result)
    }
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
    // Invariants 2, 3 and 11 above.
    return position + leaf._withUnsafeGuaranteedRef { $0.elementsInPlace.partitionPoint(isBefore) }
  }

  /// Loads into the caches the whole leaf that each of `marks.count`
  /// searches ends in, search `i` going by `isBefore(i, element)`, and
  /// initializes `marks[i]` to it (see
  /// ``partitionPoint(in:_:readingLeaf:)``); returns a sum of the bytes
  /// and counts read, only so that the loads are kept.
  ///
  /// The searches descend together, a level at a time, then every leaf
  /// is loaded. Each step that misses is a loop of its own over every
  /// search, whose iterations do not depend on each other, so that their
  /// misses overlap: at each level the nodes with their arrays' first
  /// lines, before the searches that read them; then the leaves with
  /// their elements' first lines; then the rest of the elements. One
  /// search alone waits for each of its misses in turn, every step of it
  /// depending on the one before. The whole leaf, because an insertion or
  /// a removal there moves half of it. An inexact `isBefore` (one that
  /// decides ties either way) only loads a neighbouring leaf.
  ///
  /// - Precondition: The tree is not empty.
  /// - Complexity: O(*k* log *n*) for *k* searches.
  func touchLeaves(
    _ marks: UnsafeMutableBufferPointer<LeafMark>, _ isBefore: (Int, UnsafePointer<Element>) -> Bool
  ) -> Int {
    precondition(root != nil, "an empty tree has no leaves")
    guard !marks.isEmpty else { return 0 }
    // Invariants 2, 3, 4 and 6 above.
    marks.initialize(repeating: LeafMark(leaf: Unmanaged.passUnretained(root.unsafelyUnwrapped), start: 0))
    var loaded = 0
    while !marks[0].leaf._withUnsafeGuaranteedRef(\.isLeaf) {
      // The nodes and their arrays' first lines, in a short loop whose
      // iterations do not depend on each other, before the searches that
      // read them one after another.
      for mark in marks {
        loaded &+= mark.leaf._withUnsafeGuaranteedRef { $0.firsts.count &+ $0.counts.count &+ $0.children.count }
      }
      for search in marks.indices {
        let mark = marks[search]
        marks[search] = mark.leaf._withUnsafeGuaranteedRef { node in
          let index = node.childIndex { isBefore(search, $0) }
          return LeafMark(leaf: node.unretainedChild(index), start: mark.start + node.count(before: index))
        }
      }
    }
    // Likewise the leaves and their elements' first lines, then the rest.
    for mark in marks { loaded &+= mark.leaf._withUnsafeGuaranteedRef { $0.elements.count } }
    for mark in marks {
      loaded &+= mark.leaf._withUnsafeGuaranteedRef { leaf in
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
    // Invariants 2 and 5 above.
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
    // Invariants 2, 4 and 5 above.
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

// @unchecked Sendable: invariant 1 above.
extension OrderStatisticTree: @unchecked Sendable where Element: Sendable {}
