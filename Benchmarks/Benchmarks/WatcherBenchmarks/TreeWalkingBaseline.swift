import PredicateDSL

/// The baseline's evaluation, written with the library's public API only:
/// a walk of the master predicate over a changed object's record, key by
/// key, as ZSContextWatcher has `NSPredicate` evaluate its master predicate
/// on each changed object.
///
/// It covers what the benchmarks' watches are made of: `AND`, `OR`, `NOT`,
/// and a key path compared with a constant or a list of constants by `==`,
/// `!=`, `<`, `<=`, `>`, `>=` or `BETWEEN`, on integers, doubles and strings,
/// with `NSPredicate`'s results for them (a missing key is nil, and nil is
/// ordered against nothing). Anything else stops the run: the fixture checks
/// the baseline's count against one made by hand before timing.
enum TreeWalkingBaseline {
  /// Whether `predicate` holds for `record`.
  static func evaluate(_ predicate: PredicateSyntax, on record: FilterValue) -> Bool {
    guard case .record(let values) = record else { preconditionFailure("the baseline reads records") }
    return test(predicate, values)
  }

  private static func test(_ predicate: PredicateSyntax, _ values: [String: FilterValue]) -> Bool {
    switch predicate.kind {
    case .constant(let value): value
    case .not(let operand): !test(operand, values)
    case .and(let operands): operands.allSatisfy { test($0, values) }
    case .or(let operands): operands.contains { test($0, values) }
    case .comparison(let comparison): compare(comparison, values)
    }
  }

  private static func value(_ expression: ExpressionSyntax, _ values: [String: FilterValue]) -> FilterValue {
    switch expression.kind {
    case .keyPath(let key): values[key] ?? .null
    case .constant(let value): value
    case .aggregate(let elements): .array(elements.map { value($0, values) })
    default: preconditionFailure("the baseline reads key paths and constants, not \(expression)")
    }
  }

  private static func compare(_ comparison: ComparisonSyntax, _ values: [String: FilterValue]) -> Bool {
    precondition(comparison.quantifier == .direct && comparison.options.isEmpty, "the baseline compares directly")
    let (lhs, rhs) = (value(comparison.lhs, values), value(comparison.rhs, values))
    switch comparison.operator {
    case .equal: return order(lhs, rhs) == 0
    case .notEqual: return order(lhs, rhs) != 0
    case .less: return order(lhs, rhs).map { $0 < 0 } ?? false
    case .lessOrEqual: return order(lhs, rhs).map { $0 <= 0 } ?? false
    case .greater: return order(lhs, rhs).map { $0 > 0 } ?? false
    case .greaterOrEqual: return order(lhs, rhs).map { $0 >= 0 } ?? false
    case .between:
      guard case .array(let bounds) = rhs, bounds.count == 2 else { preconditionFailure("BETWEEN needs two bounds") }
      guard let low = order(lhs, bounds[0]), let high = order(lhs, bounds[1]) else { return false }
      return low >= 0 && high <= 0
    default:
      preconditionFailure("the baseline does not evaluate \(comparison.operator)")
    }
  }

  /// -1, 0 or 1 as `lhs` is below, equal to or above `rhs`; nil when the
  /// two are not ordered (nil, or values of different kinds).
  private static func order(_ lhs: FilterValue, _ rhs: FilterValue) -> Int? {
    switch (lhs, rhs) {
    case (.int(let a), .int(let b)): a < b ? -1 : a == b ? 0 : 1
    case (.double(let a), .double(let b)): a < b ? -1 : a == b ? 0 : a > b ? 1 : nil
    case (.int(let a), .double(let b)): order(.double(Double(a)), .double(b))
    case (.double(let a), .int(let b)): order(.double(a), .double(Double(b)))
    case (.string(let a), .string(let b)): a < b ? -1 : a == b ? 0 : 1
    default: nil
    }
  }
}
