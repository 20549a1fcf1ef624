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
