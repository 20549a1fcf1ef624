extension UnsafeMutablePointer where Pointee: BitwiseCopyable {
  /// A buffer of `newCapacity` elements holding this one's first
  /// `capacity` and `value` after them; this buffer is deallocated
  /// (invariant 6 in ScratchBuffer.swift).
  func regrown(from capacity: Int, to newCapacity: Int, filling value: Pointee) -> UnsafeMutablePointer {
    let grown = UnsafeMutablePointer.allocate(capacity: newCapacity)
    grown.initialize(from: self, count: capacity)
    (grown + capacity).initialize(repeating: value, count: newCapacity - capacity)
    deallocate()
    return grown
  }
}
