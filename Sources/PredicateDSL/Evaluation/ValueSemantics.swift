extension FilterValue {
  /// Apple's `isEqual:`: numbers (and Booleans) by value, strings by their
  /// code units, collections and records by contents, nil equal only to nil.
  package static func predicateEqual(_ lhs: FilterValue, _ rhs: FilterValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): return true
    case (.string(let a), .string(let b)): return TextComparison.literalEqual(a, b)
    case (.date(let a), .date(let b)): return a == b
    case (.uuid(let a), .uuid(let b)): return a == b
    case (.data(let a), .data(let b)): return a == b
    case (.array(let a), .array(let b)):
      return a.count == b.count && zip(a, b).allSatisfy { predicateEqual($0, $1) }
    case (.set(let a), .set(let b)):
      // As sets of predicate-equal values, both ways: {1, 1.0} is {1}.
      return Set(a.map(MembershipKey.init)) == Set(b.map(MembershipKey.init))
    case (.record(let a), .record(let b)):
      guard a.count == b.count else { return false }
      return a.allSatisfy { key, value in b[key].map { predicateEqual(value, $0) } ?? false }
    default:
      guard let a = NumericValue(lhs), let b = NumericValue(rhs) else { return false }
      return NumericValue.compare(a, b) == 0
    }
  }

  /// Apple's `compare:` for the ordering operators: numbers by value, strings
  /// by Unicode scalar values, dates chronologically.
  ///
  /// - Returns: The sign of the comparison, or nil when either side is nil
  ///   (every ordering with nil is false) or a NaN is involved.
  /// - Throws: ``ValueFault`` when the two values cannot be ordered, such as
  ///   a number against a string: Apple raises there.
  package static func predicateOrder(_ lhs: FilterValue, _ rhs: FilterValue) throws(ValueFault) -> Int? {
    switch (lhs, rhs) {
    case (.null, _), (_, .null): return nil
    case (.string(let a), .string(let b)): return TextComparison.literalOrder(a, b)
    case (.date(let a), .date(let b)): return a < b ? -1 : (a == b ? 0 : (a > b ? 1 : nil))
    default:
      if let a = NumericValue(lhs), let b = NumericValue(rhs) { return NumericValue.compare(a, b) }
      throw .typeMismatch(
        "cannot order \(lhs.typeName) \(lhs.shortDescription) against \(rhs.typeName) \(rhs.shortDescription)")
    }
  }

  /// The value as error messages quote it, cut to a readable length.
  var shortDescription: String {
    let text = ExpressionSyntax(.constant(self)).description
    return text.count > 40 ? String(text.prefix(37)) + "…" : text
  }

  /// The elements a collection operand contributes to `IN`, `CONTAINS` and
  /// the quantifiers: an array's or a set's elements, a record's values.
  /// Nil has none; any other value is not a collection.
  package var collectionElements: [FilterValue]? {
    switch self {
    case .array(let elements): elements
    case .set(let elements): Array(elements)
    case .record(let record): Array(record.values)
    case .null: []
    default: nil
    }
  }
}
