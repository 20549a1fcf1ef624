import PredicateDSL

/// The bounds of a range conjunct; each is a constant, as the range index
/// compares it, and whether it is included. Trivial, so that the bounds
/// travel from the split to the index without reference counting, and
/// packed into 17 bytes (two words and a byte of flags), so that a range
/// index entry, bounds and watch identifier, is 32 bytes: half a cache line.
struct RangeBounds {
  private var lowerBits: UInt64 = 0
  private var upperBits: UInt64 = 0
  private var flags: Flags = []

  private struct Flags: OptionSet {
    let rawValue: UInt8
    static let hasLower = Flags(rawValue: 1)
    static let lowerIsDouble = Flags(rawValue: 2)
    static let lowerIncluded = Flags(rawValue: 4)
    static let hasUpper = Flags(rawValue: 8)
    static let upperIsDouble = Flags(rawValue: 16)
    static let upperIncluded = Flags(rawValue: 32)
  }

  /// Bounds from constants; nil when a constant has no order against
  /// numbers and dates (which `IndexedConjunct.range` never passes).
  init?(lower: (value: FilterValue, inclusive: Bool)?, upper: (value: FilterValue, inclusive: Bool)?) {
    if let lower {
      guard let key = RangeKey(lower.value) else { return nil }
      lowerBits = key.bits
      flags.insert(.hasLower)
      if key.isDouble { flags.insert(.lowerIsDouble) }
      if lower.inclusive { flags.insert(.lowerIncluded) }
    }
    if let upper {
      guard let key = RangeKey(upper.value) else { return nil }
      upperBits = key.bits
      flags.insert(.hasUpper)
      if key.isDouble { flags.insert(.upperIsDouble) }
      if upper.inclusive { flags.insert(.upperIncluded) }
    }
  }

  private init() {}

  /// The bounds a value passes exactly when it passes both `self` and
  /// `other` (two range conjuncts on one attribute, as one range): the
  /// greater lower bound and the lesser upper bound, the excluded one where
  /// two are equal.
  func intersection(_ other: RangeBounds) -> RangeBounds {
    var result = RangeBounds()
    let lower = Self.tighter(self.lower.map { ($0, lowerIncluded) }, other.lower.map { ($0, other.lowerIncluded) }, 1)
    let upper = Self.tighter(self.upper.map { ($0, upperIncluded) }, other.upper.map { ($0, other.upperIncluded) }, -1)
    if let (key, included) = lower {
      result.lowerBits = key.bits
      result.flags.insert(.hasLower)
      if key.isDouble { result.flags.insert(.lowerIsDouble) }
      if included { result.flags.insert(.lowerIncluded) }
    }
    if let (key, included) = upper {
      result.upperBits = key.bits
      result.flags.insert(.hasUpper)
      if key.isDouble { result.flags.insert(.upperIsDouble) }
      if included { result.flags.insert(.upperIncluded) }
    }
    return result
  }

  /// Of two bounds on one side, the one fewer values pass: the greater
  /// (`side` 1, lower bounds) or the lesser (`side` -1, upper bounds); at
  /// equal keys, included only if both are. Bounds are never NaN.
  private static func tighter(
    _ a: (key: RangeKey, included: Bool)?, _ b: (key: RangeKey, included: Bool)?, _ side: Int
  ) -> (key: RangeKey, included: Bool)? {
    guard let a else { return b }
    guard let b else { return a }
    let order = RangeKey.order(a.key, b.key) ?? 0
    if order == 0 { return (a.key, a.included && b.included) }
    return order * side > 0 ? a : b
  }

  /// The lower bound, if any.
  var lower: RangeKey? {
    flags.contains(.hasLower) ? RangeKey(bits: lowerBits, isDouble: flags.contains(.lowerIsDouble)) : nil
  }

  /// The upper bound, if any.
  var upper: RangeKey? {
    flags.contains(.hasUpper) ? RangeKey(bits: upperBits, isDouble: flags.contains(.upperIsDouble)) : nil
  }

  /// The lower bound of bounds that have one (the entries of a range
  /// index's lists of lower bounds and ranges), without the test.
  var presentLower: RangeKey { RangeKey(bits: lowerBits, isDouble: flags.contains(.lowerIsDouble)) }

  /// The upper bound of bounds that have one, without the test.
  var presentUpper: RangeKey { RangeKey(bits: upperBits, isDouble: flags.contains(.upperIsDouble)) }

  /// Whether the lower bound is included (`>=`, `BETWEEN`).
  var lowerIncluded: Bool { flags.contains(.lowerIncluded) }
  /// Whether the upper bound is included (`<=`, `BETWEEN`).
  var upperIncluded: Bool { flags.contains(.upperIncluded) }

  /// Whether `value` lies within the bounds, as the predicate's
  /// comparisons see it: never for a value without an order (nil, NaN, a
  /// string).
  func contains(_ value: FilterValue) -> Bool {
    guard let key = RangeKey(value) else { return false }
    return contains(key)
  }

  /// Whether `key` lies within the bounds.
  @inline(__always)
  func contains(_ key: RangeKey) -> Bool {
    if let lower {
      guard let order = RangeKey.order(key, lower), order > 0 || (order == 0 && lowerIncluded) else { return false }
    }
    if let upper {
      guard let order = RangeKey.order(key, upper), order < 0 || (order == 0 && upperIncluded) else { return false }
    }
    return true
  }
}
