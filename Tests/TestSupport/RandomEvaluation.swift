package import PredicateDSL

/// Generates random records and random predicates over the same keys, so
/// that most comparisons read real values: the input of the differential test
/// between the compiled evaluator and ``ReferenceInterpreter``.
///
/// Values are drawn from small pools full of edge cases (nil, missing keys,
/// wrong types, `café` precomposed and decomposed, `ß`, wildcards in text).
package struct RandomEvaluation {
  /// The source of randomness; its seed replays a run.
  package var generator: SeededGenerator

  /// Creates a generator whose output depends on `seed` only.
  package init(seed: UInt64) {
    generator = SeededGenerator(seed: seed)
  }

  static let strings: [FilterValue] = [
    "", "a", "A", "abc", "Abc", "ABC", "café", "cafe\u{301}", "CAFÉ", "ß", "SS", "x*y", "a.b", "b", "10", "9",
  ]
  /// Integers, with the edges of exact comparison against doubles (2^53 + 1
  /// has no double) last.
  static let integers: [FilterValue] = [
    -3, -1, 0, 1, 2, 3, 10, .int(.max), .int(.min), .int(9_007_199_254_740_993), .int(-9_007_199_254_740_993),
  ]
  /// Doubles, with the edges of comparison: -0, NaN, the infinities, 2^53.
  static let doubles: [FilterValue] = [
    -1.5, 0.0, 0.5, 2.0, 2.5, 3.0, 1e300, .double(-0.0), .double(.nan), .double(.infinity), .double(-.infinity),
    .double(9_007_199_254_740_992),
  ]
  static let keyPaths = [
    "i", "d", "s", "b", "t", "n", "r.i", "r.s", "items.i", "items.s", "m", "t.@count", "n.@sum", "n.@max",
    "items.@avg.i", "dt", "r",
  ]
  static let collectionKeys = ["t", "n", "items.i", "items.s", "m", "items", "r"]

  // MARK: Records

  /// A random record over the keys `i d s b t n r items dt` (`m` is never present).
  package mutating func record() -> FilterValue {
    var fields: [String: FilterValue] = [:]
    func maybe(_ key: String, _ value: @autoclosure () -> FilterValue) {
      if generator.chance(0.9) { fields[key] = value() }
    }
    maybe("i", scalar(preferring: Self.integers))
    maybe("d", scalar(preferring: Self.doubles))
    maybe("s", scalar(preferring: Self.strings))
    maybe("b", .bool(generator.chance(0.5)))
    maybe("t", .array((0..<Int.random(in: 0...3, using: &generator)).map { _ in generator.pick(Self.strings) }))
    maybe(
      "n",
      .array((0..<Int.random(in: 0...3, using: &generator)).map { _ in generator.pick(Array(Self.integers.prefix(7))) })
    )
    maybe("r", ["i": generator.pick(Self.integers), "s": generator.pick(Self.strings)])
    maybe(
      "items",
      .array(
        (0..<Int.random(in: 0...3, using: &generator)).map { _ in
          ["i": scalar(preferring: Self.integers), "s": generator.pick(Self.strings)]
        }))
    maybe("dt", .date(secondsSinceReferenceDate: Double(Int.random(in: -2...2, using: &generator))))
    return .record(fields)
  }

  /// Mostly a value of the key's type; sometimes nil or another type.
  mutating func scalar(preferring pool: [FilterValue]) -> FilterValue {
    switch Int.random(in: 0..<20, using: &generator) {
    case 0: .null
    case 1: generator.pick(Self.strings)
    case 2: generator.pick(Self.doubles)
    default: generator.pick(pool)
    }
  }

  /// A value for `$v`, or (one time in ten) none, to exercise unbound variables.
  package mutating func variables() -> [String: FilterValue] {
    generator.chance(0.9) ? ["v": constant()] : [:]
  }

  // MARK: Predicates

  /// A random predicate over the same keys: comparisons with every operator, options and
  /// quantifier, compounds, arithmetic, functions, indexes, casts, subqueries and ternaries.
  package mutating func predicate(depth: Int = 0) -> PredicateSyntax {
    switch depth >= 3 ? 4 : Int.random(in: 0..<10, using: &generator) {
    case 0: return PredicateSyntax(.not(predicate(depth: depth + 1)))
    case 1:
      return PredicateSyntax(
        .and((0..<Int.random(in: 2...4, using: &generator)).map { _ in predicate(depth: depth + 1) }))
    case 2:
      return PredicateSyntax(
        .or((0..<Int.random(in: 2...4, using: &generator)).map { _ in predicate(depth: depth + 1) }))
    case 3 where generator.chance(0.2): return PredicateSyntax(.constant(generator.chance(0.5)))
    default: return PredicateSyntax(.comparison(comparison(depth: depth)))
    }
  }

  mutating func comparison(depth: Int) -> ComparisonSyntax {
    let operators = ComparisonSyntax.Operator.allCases.filter { $0 != .utiEquals && $0 != .utiConformsTo }
    let operation = generator.pick(operators)
    var options: ComparisonSyntax.Options = []
    if operation.acceptsOptions, generator.chance(0.4) {
      options = generator.pick([
        .caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive], .normalized,
      ])
    }
    let quantifier = generator.chance(0.25) ? generator.pick([.any, .all, .none]) : ComparisonSyntax.Quantifier.direct
    let lhs = quantifier == .direct ? expression(depth: depth + 1) : key(generator.pick(Self.collectionKeys))
    let rhs: ExpressionSyntax
    switch operation {
    case .between:
      rhs =
        generator.chance(0.7)
        ? ExpressionSyntax(.constant(.array([orderedConstant(), orderedConstant()])))
        : ExpressionSyntax(.aggregate([expression(depth: depth + 2), ExpressionSyntax(.constant(orderedConstant()))]))
    case .like:
      rhs = ExpressionSyntax(
        .constant(generator.pick(["*", "a*", "?bc", "*b*", "caf?", "CAF*", "x\\*y", "*.?", "", "a"])))
    case .matches:
      rhs = ExpressionSyntax(.constant(generator.pick(["a.*", "[a-c]+", "caf.", "(?i)abc", "\\d+", ".*", "a|ab"])))
    case .in where generator.chance(0.6):
      rhs = ExpressionSyntax(.constant(.array((0..<Int.random(in: 0...3, using: &generator)).map { _ in constant() })))
    default:
      rhs = generator.chance(0.6) ? ExpressionSyntax(.constant(constant())) : expression(depth: depth + 1)
    }
    if generator.chance(0.15) {
      // A constant on the left exercises the mirrored operators.
      return ComparisonSyntax(
        quantifier: .direct, ExpressionSyntax(.constant(constant())), operation, options: options, lhs)
    }
    return ComparisonSyntax(quantifier: quantifier, lhs, operation, options: options, rhs)
  }

  mutating func key(_ path: String) -> ExpressionSyntax {
    ExpressionSyntax(.keyPath(path))
  }

  mutating func expression(depth: Int) -> ExpressionSyntax {
    switch depth >= 3 ? Int.random(in: 0..<3, using: &generator) : Int.random(in: 0..<14, using: &generator) {
    case 0, 1: return key(generator.pick(Self.keyPaths))
    case 2: return ExpressionSyntax(.constant(constant()))
    case 3: return ExpressionSyntax(.variable("v"))
    case 4, 5:
      return ExpressionSyntax(
        .arithmetic(
          generator.pick([.add, .subtract, .multiply, .divide, .power, .bitwiseAnd]),
          expression(depth: depth + 1), expression(depth: depth + 1)))
    case 6:
      let function = generator.pick([
        PredicateFunction.absoluteValue, .length, .uppercase, .count, .sum, .max, .floor, .modulus,
      ])
      return ExpressionSyntax(.function(function, (0..<function.arity).map { _ in expression(depth: depth + 1) }))
    case 7:
      let subscripts: [ExpressionSyntax.Subscript] = [
        .first, .last, .size, .at(ExpressionSyntax(.constant(generator.pick([0, 1, 5, "s"])))),
      ]
      return ExpressionSyntax(.index(base: key(generator.pick(["n", "t", "r", "m", "i"])), generator.pick(subscripts)))
    case 8:
      return ExpressionSyntax(.negation(expression(depth: depth + 1)))
    case 9:
      return ExpressionSyntax(
        .member(
          base: ExpressionSyntax(
            .subquery(
              key(generator.pick(["items", "n", "t", "i"])), variable: "x",
              PredicateSyntax(
                .comparison(
                  ComparisonSyntax(
                    quantifier: .direct, ExpressionSyntax(generator.chance(0.5) ? .variable("x") : .keyPath("i")),
                    generator.pick([.greater, .equal, .beginsWith]), options: [],
                    ExpressionSyntax(.constant(constant()))))))),
          keyPath: "@count"))
    case 10:
      return ExpressionSyntax(
        .ternary(predicate(depth: depth + 1), expression(depth: depth + 1), expression(depth: depth + 1)))
    case 11:
      return ExpressionSyntax(
        .cast(expression(depth: depth + 1), type: generator.pick(["NSNumber", "NSString", "NSDate"])))
    case 12:
      return ExpressionSyntax(.aggregate([expression(depth: depth + 1), ExpressionSyntax(.constant(constant()))]))
    default:
      return key(generator.pick(Self.keyPaths))
    }
  }

  mutating func constant() -> FilterValue {
    switch Int.random(in: 0..<12, using: &generator) {
    case 0, 1, 2: generator.pick(Self.integers)
    case 3, 4: generator.pick(Self.doubles)
    case 5, 6, 7: generator.pick(Self.strings)
    case 8: .bool(generator.chance(0.5))
    case 9: .null
    case 10: .date(secondsSinceReferenceDate: Double(Int.random(in: -2...2, using: &generator)))
    default:
      .array((0..<Int.random(in: 0...2, using: &generator)).map { _ in generator.pick(Array(Self.integers.prefix(7))) })
    }
  }

  mutating func orderedConstant() -> FilterValue {
    switch Int.random(in: 0..<3, using: &generator) {
    case 0: generator.pick(Self.integers)
    case 1: generator.pick(Self.doubles)
    default: generator.pick(Self.strings)
    }
  }
}
