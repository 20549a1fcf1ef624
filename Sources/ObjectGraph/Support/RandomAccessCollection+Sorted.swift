extension RandomAccessCollection {
  /// Whether the elements are in the order `areInIncreasingOrder` gives:
  /// a linear check that lets callers skip sorting what usually arrives
  /// sorted.
  @inlinable package func isSorted(by areInIncreasingOrder: (Element, Element) -> Bool) -> Bool {
    var previous: Element?
    for element in self {
      if let previous, areInIncreasingOrder(element, previous) { return false }
      previous = element
    }
    return true
  }
}
