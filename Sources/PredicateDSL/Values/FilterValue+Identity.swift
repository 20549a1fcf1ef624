extension FilterValue {
  /// Whether two values are the same down to what any predicate can tell
  /// apart: strings by their UTF-8 bytes (predicates compare code units,
  /// while `==` on strings is canonical equivalence), doubles and dates by
  /// bit pattern (`-0.0` and `0.0` divide differently), arrays element by
  /// element. Sets and records are never identical: no attribute holds one,
  /// and "not identical" is the safe answer.
  ///
  /// Stricter than `==`: saves use it to record conservatively which
  /// attributes changed, for watchers that skip work on unchanged ones.
  package func isIdentical(to other: FilterValue) -> Bool {
    switch (self, other) {
    case (.null, .null): true
    case (.bool(let a), .bool(let b)): a == b
    case (.int(let a), .int(let b)): a == b
    case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern
    case (.date(let a), .date(let b)): a.bitPattern == b.bitPattern
    case (.string(let a), .string(let b)): Self.sameRepresentation(a, b) || TextComparison.literalEqual(a, b)
    case (.uuid(let a), .uuid(let b)): a == b
    case (.data(let a), .data(let b)): a == b
    case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.isIdentical(to: $1) }
    default: false
    }
  }

  /// How a value differs from the value it replaces.
  package enum Difference {
    /// Identical (see ``isIdentical(to:)``).
    case none
    /// Equal to Swift's `==` but not identical: canonically equivalent
    /// strings, `-0.0` and `0.0`.
    case representation
    /// Not equal.
    case value
  }

  /// How this value differs from `old`: ``isIdentical(to:)`` and then `==`
  /// in one look at the pair, for the common kinds.
  package func difference(from old: FilterValue) -> Difference {
    switch (self, old) {
    case (.int(let a), .int(let b)): return a == b ? .none : .value
    case (.double(let a), .double(let b)), (.date(let a), .date(let b)):
      return a.bitPattern == b.bitPattern ? .none : (a == b ? .representation : .value)
    case (.bool(let a), .bool(let b)): return a == b ? .none : .value
    case (.null, .null): return .none
    case (.string(let a), .string(let b)):
      if Self.sameRepresentation(a, b) || TextComparison.literalEqual(a, b) { return .none }
      return a == b ? .representation : .value
    default:
      if isIdentical(to: old) { return .none }
      return self == old ? .representation : .value
    }
  }

  /// Whether two strings are the same value bit for bit: the same storage,
  /// or the same inline bytes. An unchanged attribute's old and new values
  /// are, so a save answers without reading their bytes.
  @inline(__always)
  private static func sameRepresentation(_ a: String, _ b: String) -> Bool {
    // A string is two words on 64-bit platforms; elsewhere, read the bytes.
    guard MemoryLayout<String>.size == MemoryLayout<(UInt64, UInt64)>.size else { return false }
    return unsafeBitCast(a, to: (UInt64, UInt64).self) == unsafeBitCast(b, to: (UInt64, UInt64).self)
  }
}
