/// A problem found while computing with values, before the compiler or the
/// evaluator attaches the position of the expression that caused it.
@usableFromInline
package struct ValueFault: Error, Sendable {
  /// The kind of problem, as evaluation errors report it.
  package var code: PredicateEvaluationError.Code
  /// What is wrong, without the position.
  package var message: String

  init(_ code: PredicateEvaluationError.Code, _ message: String) {
    self.code = code
    self.message = message
  }

  static func typeMismatch(_ message: String) -> ValueFault { ValueFault(.typeMismatch, message) }
}

/// A number as predicates compare it: Booleans are 1 and 0, as `NSNumber`s.
enum NumericValue: Sendable {
  case int(Int64)
  case double(Double)

  init?(_ value: FilterValue) {
    switch value {
    case .int(let int): self = .int(int)
    case .double(let double): self = .double(double)
    case .bool(let bool): self = .int(bool ? 1 : 0)
    default: return nil
    }
  }

  var value: FilterValue {
    switch self {
    case .int(let int): .int(int)
    case .double(let double): .double(double)
    }
  }

  var doubleValue: Double {
    switch self {
    case .int(let int): Double(int)
    case .double(let double): double
    }
  }

  /// Exact three-way comparison; nil when a NaN is involved.
  static func compare(_ lhs: NumericValue, _ rhs: NumericValue) -> Int? {
    switch (lhs, rhs) {
    case (.int(let a), .int(let b)): a < b ? -1 : (a == b ? 0 : 1)
    case (.int(let a), .double(let b)): compareExactly(a, b)
    case (.double(let a), .int(let b)): compareExactly(b, a).map { -$0 }
    case (.double(let a), .double(let b)): a < b ? -1 : (a == b ? 0 : (a > b ? 1 : nil))
    }
  }

  /// Compares an integer with a double without rounding the integer, so
  /// that 2⁶³−1 and 9.223372036854776e18 are told apart.
  static func compareExactly(_ int: Int64, _ double: Double) -> Int? {
    if double.isNaN { return nil }
    if double >= 9_223_372_036_854_775_808.0 { return -1 }
    if double < -9_223_372_036_854_775_808.0 { return 1 }
    let whole = double.rounded(.towardZero)
    let truncated = Int64(whole)
    if int != truncated { return int < truncated ? -1 : 1 }
    let fraction = double - whole
    return fraction == 0 ? 0 : (fraction > 0 ? -1 : 1)
  }
}

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

/// A value as a hash key with the meaning of ``FilterValue/predicateEqual(_:_:)``:
/// equal numbers are equal keys whatever their type, strings compare by code
/// units (Swift's `String` equality would join canonical equivalents).
package enum MembershipKey: Hashable, Sendable {
  // Not `indirect`: the recursive cases hold arrays, sets and dictionaries,
  // which are references already, so a scalar key never allocates.
  case null
  case int(Int64)
  case double(Double)
  case string(LiteralString)
  case date(Double)
  case uuid(UInt128)
  case data([UInt8])
  case array([MembershipKey])
  case set(Set<MembershipKey>)
  case record([String: MembershipKey])

  package init(_ value: FilterValue) {
    switch value {
    case .null: self = .null
    case .bool(let bool): self = .int(bool ? 1 : 0)
    case .int(let int): self = .int(int)
    case .double(let double):
      if let int = Int64(exactly: double) { self = .int(int) } else { self = .double(double) }
    case .string(let string): self = .string(LiteralString(string))
    case .date(let seconds): self = .date(seconds)
    case .uuid(let uuid): self = .uuid(uuid)
    case .data(let bytes): self = .data(bytes)
    case .array(let array): self = .array(array.map(MembershipKey.init))
    case .set(let set): self = .set(Set(set.map(MembershipKey.init)))
    case .record(let record): self = .record(record.mapValues(MembershipKey.init))
    }
  }
}

/// A string that is equal to another only when their code units are, and
/// hashes accordingly.
package struct LiteralString: Hashable, Sendable {
  var string: String

  init(_ string: String) { self.string = string }

  package static func == (lhs: LiteralString, rhs: LiteralString) -> Bool {
    TextComparison.literalEqual(lhs.string, rhs.string)
  }

  package func hash(into hasher: inout Hasher) {
    TextComparison.withUTF8(string) { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
  }
}
