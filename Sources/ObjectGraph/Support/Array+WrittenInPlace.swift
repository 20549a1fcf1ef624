extension Array {
  /// `init(unsafeUninitializedCapacity:initializingWith:)`, except that a
  /// capacity of zero gives an empty array without calling `initializer`.
  ///
  /// With a capacity of zero, the standard library's initializer stores the
  /// count into the empty-array storage that every empty array shares: a
  /// write that two threads doing the same race on (ThreadSanitizer
  /// reports it), however harmless the value.
  @inlinable
  package init(
    writingInPlace capacity: Int,
    _ initializer: (inout UnsafeMutableBufferPointer<Element>, inout Int) throws -> Void
  ) rethrows {
    guard capacity > 0 else {
      self = []
      return
    }
    try self.init(unsafeUninitializedCapacity: capacity, initializingWith: initializer)
  }
}
