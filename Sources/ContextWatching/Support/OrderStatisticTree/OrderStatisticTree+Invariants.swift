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
