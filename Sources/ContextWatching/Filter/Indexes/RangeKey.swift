import PredicateDSL

/// A number or date as the range index compares it: exactly, integers as
/// integers, doubles and dates as doubles. A trivial value, so the index's
/// entries copy without reference counting.
struct RangeKey {
  /// The integer's or the double's bits.
  let bits: UInt64
  /// Whether `bits` are a double's.
  let isDouble: Bool

  init(bits: UInt64, isDouble: Bool) {
    self.bits = bits
    self.isDouble = isDouble
  }

  /// The key of a bound or an object's value; nil for values with no order
  /// against numbers and dates (nil, strings).
  init?(_ value: borrowing FilterValue) {
    switch value {
    case .int(let number): self.init(bits: UInt64(bitPattern: number), isDouble: false)
    case .bool(let flag): self.init(bits: flag ? 1 : 0, isDouble: false)
    case .double(let number): self.init(bits: number.bitPattern, isDouble: true)
    case .date(let seconds): self.init(bits: seconds.bitPattern, isDouble: true)
    default: return nil
    }
  }

  private var integer: Int64 { Int64(bitPattern: bits) }
  private var double: Double { Double(bitPattern: bits) }

  /// Whether the key is a NaN, which no bound admits (bounds never are).
  var isNaN: Bool { isDouble && double.isNaN }

  /// The key as a double (an integer beyond 2⁵³ rounded to the nearest):
  /// for ruling matches out with `roundedDown` and `roundedUp`, never for
  /// deciding one. Rounding to the nearest keeps the order (a ≤ b gives
  /// approximate(a) ≤ approximate(b)), and a double is its own.
  @inline(__always)
  var approximate: Double { isDouble ? double : Double(integer) }

  /// The greatest double at or below the key: a key at or above the
  /// key has an `approximate` at or above it.
  var roundedDown: Double {
    guard !isDouble else { return double }
    let nearest = Double(integer)
    return Self.order(integer, nearest) == -1 ? nearest.nextDown : nearest
  }

  /// The least double at or above the key: a key at or below the key has
  /// an `approximate` at or below it.
  var roundedUp: Double {
    guard !isDouble else { return double }
    let nearest = Double(integer)
    return Self.order(integer, nearest) == 1 ? nearest.nextUp : nearest
  }

  /// -1, 0 or 1, exactly, as the predicate's comparison orders numbers; nil
  /// when a NaN is involved.
  @inline(__always)
  static func order(_ lhs: RangeKey, _ rhs: RangeKey) -> Int? {
    switch (lhs.isDouble, rhs.isDouble) {
    case (false, false):
      let (a, b) = (lhs.integer, rhs.integer)
      return a < b ? -1 : (a == b ? 0 : 1)
    case (true, true):
      let (a, b) = (lhs.double, rhs.double)
      return a < b ? -1 : (a == b ? 0 : (a > b ? 1 : nil))
    case (false, true): return order(lhs.integer, rhs.double)
    case (true, false): return order(rhs.integer, lhs.double).map { -$0 }
    }
  }

  /// An integer against a double, exactly: rounding the integer to a
  /// double keeps the order except on a tie, which the integers decide.
  private static func order(_ integer: Int64, _ double: Double) -> Int? {
    guard !double.isNaN else { return nil }
    let rounded = Double(integer)
    if rounded < double { return -1 }
    if rounded > double { return 1 }
    if double >= 9_223_372_036_854_775_808.0 { return -1 }
    let whole = Int64(double)
    return integer < whole ? -1 : (integer == whole ? 0 : 1)
  }
}
