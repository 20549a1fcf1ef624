extension UnsafeBufferPointer {
  /// The binary search of the package's sorted lists: the number of
  /// leading elements for which `isBefore` holds, where it holds for a
  /// prefix of the elements and for none after it (the position of the
  /// first element for which it is false, or the count).
  ///
  /// Reads the elements in place, through a pointer: no copy and no retain
  /// per probe. Always inlined, so that `isBefore` is too: the search costs
  /// what a loop written out at the call would.
  ///
  /// - Complexity: O(log *n*) evaluations of `isBefore`.
  @inline(__always)
  func partitionPoint(_ isBefore: (UnsafePointer<Element>) -> Bool) -> Int {
    guard let base = baseAddress else { return 0 }
    var low = 0
    var length = count
    while length > 0 {
      let half = length / 2
      let middle = low + half
      if isBefore(base + middle) {
        low = middle + 1
        length -= half + 1
      } else {
        length = half
      }
    }
    return low
  }
}

extension Array {
  /// The partition point of `isBefore` in the array (see
  /// `UnsafeBufferPointer.partitionPoint(_:)`).
  @inline(__always)
  func partitionPoint(_ isBefore: (UnsafePointer<Element>) -> Bool) -> Int {
    withUnsafeBufferPointer { $0.partitionPoint(isBefore) }
  }
}

extension ContiguousArray {
  /// The partition point of `isBefore` in the array (see
  /// `UnsafeBufferPointer.partitionPoint(_:)`).
  @inline(__always)
  func partitionPoint(_ isBefore: (UnsafePointer<Element>) -> Bool) -> Int {
    withUnsafeBufferPointer { $0.partitionPoint(isBefore) }
  }
}
