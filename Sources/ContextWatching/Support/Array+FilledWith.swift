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
