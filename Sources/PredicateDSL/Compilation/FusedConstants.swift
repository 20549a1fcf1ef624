// The constants a fused comparison captures, in the forms its fast paths
// compare: three small values of one kind, kept together.

/// An integer constant of a fused comparison, with the double it converts
/// to and whether it converts exactly (only then do doubles take the
/// shortcut).
@usableFromInline
struct IntegerConstant: Sendable {
  @usableFromInline let value: Int64
  @usableFromInline let real: Double
  @usableFromInline let exact: Bool

  @inlinable init(_ value: Int64) {
    self.value = value
    real = Double(value)
    exact = value.magnitude <= 1 << 53
  }
}

/// The integer bounds of a fused `BETWEEN`, with their doubles.
@usableFromInline
struct IntegerBounds: Sendable {
  @usableFromInline let lower: Int64
  @usableFromInline let upper: Int64
  @usableFromInline let low: Double
  @usableFromInline let high: Double
  @usableFromInline let exact: Bool

  @inlinable init(_ lower: Int64, _ upper: Int64) {
    self.lower = lower
    self.upper = upper
    (low, high) = (Double(lower), Double(upper))
    exact = lower.magnitude <= 1 << 53 && upper.magnitude <= 1 << 53
  }
}

/// A fused text test's needle and whether its result is negated.
@usableFromInline
struct TextConstant: Sendable {
  @usableFromInline let text: ConstantTextTest
  @usableFromInline let negated: Bool

  @inlinable init(text: ConstantTextTest, negated: Bool) {
    self.text = text
    self.negated = negated
  }
}
