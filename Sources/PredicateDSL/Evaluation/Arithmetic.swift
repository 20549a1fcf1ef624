internal import Foundation

/// Arithmetic with predicate semantics: integers stay exact and fall back to
/// doubles on overflow, integer division truncates, dates move by seconds.
package enum Arithmetic {
  static func add(_ lhs: NumericValue, _ rhs: NumericValue) -> NumericValue {
    if case .int(let a) = lhs, case .int(let b) = rhs {
      let (sum, overflow) = a.addingReportingOverflow(b)
      if !overflow { return .int(sum) }
    }
    return .double(lhs.doubleValue + rhs.doubleValue)
  }

  /// `lhs <operation> rhs`; nil when either side is nil.
  package static func apply(
    _ operation: ExpressionSyntax.ArithmeticOperator, _ lhs: FilterValue, _ rhs: FilterValue
  ) throws(ValueFault) -> FilterValue {
    if lhs.isNull || rhs.isNull { return .null }
    switch (operation, lhs, rhs) {
    case (.add, .date(let date), _):
      if let seconds = NumericValue(rhs) { return .date(secondsSinceReferenceDate: date + seconds.doubleValue) }
    case (.add, _, .date(let date)):
      if let seconds = NumericValue(lhs) { return .date(secondsSinceReferenceDate: date + seconds.doubleValue) }
    case (.subtract, .date(let date), .date(let other)):
      return .double(date - other)
    case (.subtract, .date(let date), _):
      if let seconds = NumericValue(rhs) { return .date(secondsSinceReferenceDate: date - seconds.doubleValue) }
    default:
      break
    }
    guard let a = NumericValue(lhs), let b = NumericValue(rhs) else {
      throw .typeMismatch(
        "cannot apply '\(operation.text)' to \(lhs.typeName) \(lhs.shortDescription) and \(rhs.typeName) \(rhs.shortDescription)"
      )
    }
    return try apply(operation, a, b).value
  }

  static func apply(
    _ operation: ExpressionSyntax.ArithmeticOperator, _ a: NumericValue, _ b: NumericValue
  ) throws(ValueFault) -> NumericValue {
    if case .int(let x) = a, case .int(let y) = b {
      switch operation {
      case .add:
        return add(a, b)
      case .subtract:
        let (result, overflow) = x.subtractingReportingOverflow(y)
        if !overflow { return .int(result) }
      case .multiply:
        let (result, overflow) = x.multipliedReportingOverflow(by: y)
        if !overflow { return .int(result) }
      case .divide:
        guard y != 0 else { throw ValueFault(.divisionByZero, "integer division of \(x) by zero") }
        let (result, overflow) = x.dividedReportingOverflow(by: y)
        if !overflow { return .int(result) }
      case .power:
        if let result = exactPower(x, y) { return .int(result) }
      case .bitwiseAnd: return .int(x & y)
      case .bitwiseOr: return .int(x | y)
      case .bitwiseXor: return .int(x ^ y)
      case .shiftLeft: return .int(x << y)
      case .shiftRight: return .int(x >> y)
      }
    }
    let x = a.doubleValue
    let y = b.doubleValue
    switch operation {
    case .add: return .double(x + y)
    case .subtract: return .double(x - y)
    case .multiply: return .double(x * y)
    case .divide: return .double(x / y)
    case .power: return .double(Foundation.pow(x, y))
    case .bitwiseAnd, .bitwiseOr, .bitwiseXor, .shiftLeft, .shiftRight:
      throw .typeMismatch(
        "'\(operation.text)' needs integers, found \(a.value.shortDescription) and \(b.value.shortDescription)")
    }
  }

  /// `base ** exponent` when it is an integer that fits.
  static func exactPower(_ base: Int64, _ exponent: Int64) -> Int64? {
    guard exponent >= 0 else { return nil }
    var result: Int64 = 1
    var factor = base
    var remaining = exponent
    while remaining > 0 {
      if remaining & 1 == 1 {
        let (product, overflow) = result.multipliedReportingOverflow(by: factor)
        if overflow { return nil }
        result = product
      }
      remaining >>= 1
      if remaining > 0 {
        let (square, overflow) = factor.multipliedReportingOverflow(by: factor)
        if overflow { return nil }
        factor = square
      }
    }
    return result
  }

  /// `-value`; nil stays nil.
  package static func negate(_ value: FilterValue) throws(ValueFault) -> FilterValue {
    switch NumericValue(value) {
    case .int(let int)?:
      let (result, overflow) = Int64(0).subtractingReportingOverflow(int)
      return overflow ? .double(-Double(int)) : .int(result)
    case .double(let double)?:
      return .double(-double)
    case nil:
      if value.isNull { return .null }
      throw .typeMismatch("cannot negate \(value.typeName) \(value.shortDescription)")
    }
  }

  static func modulus(_ lhs: FilterValue, _ rhs: FilterValue) throws(ValueFault) -> FilterValue {
    if lhs.isNull || rhs.isNull { return .null }
    guard let a = NumericValue(lhs), let b = NumericValue(rhs) else {
      throw .typeMismatch("modulus needs numbers, found \(lhs.typeName) and \(rhs.typeName)")
    }
    if case .int(let x) = a, case .int(let y) = b {
      guard y != 0 else { throw ValueFault(.divisionByZero, "modulus of \(x) by zero") }
      return .int(y == -1 ? 0 : x % y)
    }
    return .double(a.doubleValue.truncatingRemainder(dividingBy: b.doubleValue))
  }
}
