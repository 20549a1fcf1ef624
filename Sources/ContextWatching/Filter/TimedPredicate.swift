import ObjectGraph
import PredicateDSL

/// The comparisons of a watch's predicate with `now()`, found when the watch
/// is added: each compares a date attribute of the watched entity with
/// `now()` plus a constant, so that an object's value gives the times at
/// which the comparison changes (its thresholds). The rest of the
/// predicate does not depend on time.
struct TimedPredicate {
  /// `key op now() + offset`, with the key on the left.
  struct Comparison: Hashable {
    var slot: Int
    var `operator`: ComparisonSyntax.Operator
    /// Seconds added to `now()`; negative for `now() - x`.
    var offset: Double
  }

  let comparisons: [Comparison]

  /// The comparisons with `now()` of `predicate`, or nil when it has none.
  ///
  /// - Throws: A compile error at the offending expression for a use of
  ///   `now()` whose thresholds cannot be known from one attribute.
  static func analyse(
    _ predicate: borrowing PredicateSyntax, entity: EntityLayout
  ) throws(PredicateCompileError) -> TimedPredicate? {
    var comparisons: [Comparison] = []
    try collect(predicate, entity: entity, into: &comparisons)
    return comparisons.isEmpty ? nil : TimedPredicate(comparisons: comparisons)
  }

  private static func collect(
    _ predicate: PredicateSyntax, entity: EntityLayout, into comparisons: inout [Comparison]
  ) throws(PredicateCompileError) {
    switch predicate.kind {
    case .constant: break
    case .not(let operand): try collect(operand, entity: entity, into: &comparisons)
    case .and(let operands), .or(let operands):
      for operand in operands { try collect(operand, entity: entity, into: &comparisons) }
    case .comparison(let comparison):
      let (left, right) = (readsNow(comparison.lhs), readsNow(comparison.rhs))
      guard left || right else { return }
      if left && right {
        throw refusal("now() on both sides of a comparison", at: comparison.rhs.range)
      }
      let (keySide, nowSide) = left ? (comparison.rhs, comparison.lhs) : (comparison.lhs, comparison.rhs)
      let ordering: Set<ComparisonSyntax.Operator> = [
        .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual,
      ]
      guard comparison.quantifier == .direct, ordering.contains(comparison.operator) else {
        throw refusal(
          "now() can be compared only with ==, !=, <, <=, > or >=, not with \(comparison.operator.text)"
            + (comparison.quantifier == .direct ? "" : " under a quantifier"), at: nowSide.range)
      }
      guard let offset = offset(of: nowSide) else {
        throw refusal(
          "now() can be compared only as now(), now() + seconds or now() - seconds, found \(nowSide)",
          at: nowSide.range)
      }
      guard case .keyPath(let key) = keySide.kind, case .attribute(let slot)? = entity.slot(key),
        entity.attributes[slot].type == .date
      else {
        throw refusal(
          "now() can be compared only with a date attribute of \(entity.name), found \(keySide)",
          at: keySide.range)
      }
      let op = left ? comparison.operator.mirrored ?? comparison.operator : comparison.operator
      comparisons.append(Comparison(slot: slot, operator: op, offset: offset))
    }
  }

  /// The seconds added to `now()` by `now()`, `now() ± c` or `c + now()`.
  private static func offset(of expression: ExpressionSyntax) -> Double? {
    switch expression.kind {
    case .function(.now, _): return 0
    case .arithmetic(.add, let lhs, let rhs):
      if isNow(lhs), let seconds = constantSeconds(rhs) { return seconds }
      if isNow(rhs), let seconds = constantSeconds(lhs) { return seconds }
      return nil
    case .arithmetic(.subtract, let lhs, let rhs):
      guard isNow(lhs), let seconds = constantSeconds(rhs) else { return nil }
      return -seconds
    default: return nil
    }
  }

  private static func isNow(_ expression: ExpressionSyntax) -> Bool {
    if case .function(.now, _) = expression.kind { true } else { false }
  }

  private static func constantSeconds(_ expression: ExpressionSyntax) -> Double? {
    switch expression.kind {
    case .constant(.int(let value)): return Double(value)
    case .constant(.double(let value)) where value.isFinite: return value
    case .negation(let inner): return constantSeconds(inner).map { -$0 }
    default: return nil
    }
  }

  /// Whether predicate text may call `now()` (it holds "now" in any case),
  /// so that most watches skip walking their predicate; true without text.
  static func mayReadNow(_ source: String?) -> Bool {
    guard let source else { return true }
    let letters: (UInt8, UInt8, UInt8) = (UInt8(ascii: "n"), UInt8(ascii: "o"), UInt8(ascii: "w"))
    var previous: (UInt8, UInt8) = (0, 0)
    for byte in source.utf8 {
      let lower = byte | 0x20
      if previous.0 == letters.0 && previous.1 == letters.1 && lower == letters.2 { return true }
      previous = (previous.1, lower)
    }
    return false
  }

  /// Whether an expression calls `now()` anywhere inside it.
  static func readsNow(_ expression: ExpressionSyntax) -> Bool {
    switch expression.kind {
    case .constant, .evaluatedObject, .keyPath, .variable: false
    case .function(let function, let arguments): function == .now || arguments.contains(where: readsNow)
    case .member(let base, _), .negation(let base), .cast(let base, _): readsNow(base)
    case .index(let base, let position):
      if readsNow(base) {
        true
      } else if case .at(let index) = position {
        readsNow(index)
      } else {
        false
      }
    case .aggregate(let elements): elements.contains(where: readsNow)
    case .arithmetic(_, let lhs, let rhs): readsNow(lhs) || readsNow(rhs)
    case .subquery(let collection, _, let predicate): readsNow(collection) || readsNow(predicate)
    case .ternary(let condition, let then, let otherwise):
      readsNow(condition) || readsNow(then) || readsNow(otherwise)
    }
  }

  /// Whether a predicate calls `now()` anywhere inside it.
  static func readsNow(_ predicate: PredicateSyntax) -> Bool {
    switch predicate.kind {
    case .constant: false
    case .not(let operand): readsNow(operand)
    case .and(let operands), .or(let operands): operands.contains(where: readsNow)
    case .comparison(let comparison): readsNow(comparison.lhs) || readsNow(comparison.rhs)
    }
  }

  private static func refusal(_ message: String, at range: SyntaxRange) -> PredicateCompileError {
    PredicateCompileError(
      .unsupported, message + "; a watch re-evaluates objects only when time crosses a date attribute's threshold",
      at: range)
  }

  // MARK: Thresholds

  /// The first time after `time` at which one of the comparisons changes
  /// on `snapshot`, or nil when none will.
  func nextCrossing(of snapshot: borrowing ObjectSnapshot, after time: Double) -> Double? {
    var earliest: Double?
    for comparison in comparisons {
      guard case .date(let value) = snapshot.values[comparison.slot], value.isFinite else { continue }
      let offset = comparison.offset
      // `value op x + offset` changes where x + offset (rounded as the
      // evaluator adds) reaches `value`, or first passes it.
      let reaching = Self.firstTime(offset, reaching: value, strictly: false)
      let passing = Self.firstTime(offset, reaching: value, strictly: true)
      let candidates: (Double?, Double?) =
        switch comparison.operator {
        case .less, .greaterOrEqual: (passing, nil)
        case .lessOrEqual, .greater: (reaching, nil)
        default: (reaching, passing)
        }
      for candidate in [candidates.0, candidates.1] {
        guard let candidate, candidate > time else { continue }
        if earliest.map({ candidate < $0 }) ?? true { earliest = candidate }
      }
    }
    return earliest
  }

  /// The least time x at which x + offset, rounded as the evaluator adds,
  /// is at least (or, `strictly`, more than) `value`.
  static func firstTime(_ offset: Double, reaching value: Double, strictly: Bool) -> Double {
    if offset == 0 { return strictly ? value.nextUp : value }
    func reached(_ x: Double) -> Bool { strictly ? x + offset > value : x + offset >= value }
    let guess = value - offset
    guard guess.isFinite else { return guess }
    // The sum is monotonic in x and the guess is within an ulp of the sum
    // (which near zero spans many of x's): bracket, then bisect.
    let unit = Swift.max(guess.ulp, value.ulp, offset.ulp)
    var (low, high, step) = (guess, guess, unit)
    while !reached(high) {
      high += step
      step *= 2
    }
    step = unit
    while reached(low) {
      low -= step
      step *= 2
    }
    while low.nextUp < high {
      let middle = low + (high - low) / 2
      guard middle > low && middle < high else { break }
      if reached(middle) { high = middle } else { low = middle }
    }
    return high
  }

}
