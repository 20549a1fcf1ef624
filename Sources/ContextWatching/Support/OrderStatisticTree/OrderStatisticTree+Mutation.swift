extension OrderStatisticTree {
  /// Inserts `element` at the partition point of `isBefore`, which must be
  /// where it belongs in the order.
  ///
  /// - Returns: The element's position.
  /// - Complexity: O(log *n*).
  @discardableResult
  mutating func insert(_ element: consuming Element, at isBefore: (UnsafePointer<Element>) -> Bool) -> Int {
    guard root != nil else {
      root = Node(elements: [element])
      return 0
    }
    Self.unshare(&root!)
    // The element is moved down to its leaf, which takes it: no copy of it
    // is made (each would retain its references).
    var element: Element? = element
    // Invariants 2 and 4 in OrderStatisticTree.swift.
    let (position, split) = Self.insert(&element, isBefore, into: Unmanaged.passUnretained(root.unsafelyUnwrapped))
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
    // Invariants 2 and 4 in OrderStatisticTree.swift.
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
    // Invariants 2 and 4 in OrderStatisticTree.swift.
    Self.update(at: position, update, in: Unmanaged.passUnretained(root.unsafelyUnwrapped))
  }

  /// Makes `node` unshared, copying it if another tree holds it.
  private static func unshare(_ node: inout Node) {
    if !isKnownUniquelyReferenced(&node) { node = node.copy() }
  }

  // The mutations below descend with each node unretained and write it
  // without run-time exclusivity checks: invariants 1 and 2 in
  // OrderStatisticTree.swift; their pointers, invariants 3 and 5.

  /// Inserts `element`, which must hold one, below `node`; its leaf takes
  /// it, leaving nil.
  private static func insert(
    _ element: inout Element?, _ isBefore: (UnsafePointer<Element>) -> Bool, into node: Unmanaged<Node>
  ) -> (position: Int, split: Node?) {
    node._withUnsafeGuaranteedRef { node in
      node.count += 1
      node.weight += element.unsafelyUnwrapped.weight
      if node.isLeaf {
        // Invariants 3 and 11 in OrderStatisticTree.swift: the place is
        // found before the leaf's elements are written.
        let index = node.elementsInPlace.partitionPoint(isBefore)
        if node.elements.count == node.elements.capacity {
          node.elements.reserveCapacity(Swift.min(node.elements.count + leafSlack, capacity + 1))
        }
        insert(element.take().unsafelyUnwrapped, at: index, into: &node.elements)
        return (index, splitIfFull(node))
      }
      let index = node.childIndex(isBefore)
      let position = node.count(before: index)
      unshare(&node.children[index])
      let (inner, split) = insert(&element, isBefore, into: node.unretainedChild(index))
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
  private static func insert(
    _ element: consuming Element, at index: Int, into elements: inout ContiguousArray<Element>
  ) {
    elements.append(element)
    let last = elements.count - 1
    guard index < last else { return }
    elements.withUnsafeMutableBufferPointer { buffer in
      // Invariant 7 in OrderStatisticTree.swift.
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
    // The predicates' pointers: invariants 3 and 5 in OrderStatisticTree.swift.
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
    let index = node.childIndex(isBefore, matching: isMatch)
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
        // Invariants 3 and 5 in OrderStatisticTree.swift.
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
    // Invariant 2 in OrderStatisticTree.swift.
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
    // The predicates' pointers: invariants 3 and 5 in OrderStatisticTree.swift.
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
    let index = node.childIndex(isBefore, matching: isMatch)
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
