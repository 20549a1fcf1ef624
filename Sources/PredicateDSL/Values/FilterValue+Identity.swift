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
    case (.string(let a), .string(let b)): TextComparison.literalEqual(a, b)
    case (.uuid(let a), .uuid(let b)): a == b
    case (.data(let a), .data(let b)): a == b
    case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.isIdentical(to: $1) }
    default: false
    }
  }
}
