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
