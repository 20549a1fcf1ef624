package import PredicateDSL

/// Generates random predicate syntax trees in the canonical shape the parser
/// produces, for round-trip properties: printing any of them and parsing the
/// text must give the same tree back.
package struct RandomSyntax {
  package var generator: SeededGenerator
  /// How deep trees may grow.
  package var maximumDepth: Int

  package init(seed: UInt64, maximumDepth: Int = 4) {
    generator = SeededGenerator(seed: seed)
    self.maximumDepth = maximumDepth
  }

  // MARK: Predicates

  package mutating func predicate(depth: Int = 0) -> PredicateSyntax {
    let leaf = depth >= maximumDepth
    switch leaf ? Int.random(in: 0..<10, using: &generator) : Int.random(in: 0..<16, using: &generator) {
    case 0: return PredicateSyntax(.constant(generator.chance(0.5)))
    case 1..<10: return PredicateSyntax(.comparison(comparison(depth: depth)))
    case 10, 11: return PredicateSyntax(.not(predicate(depth: depth + 1)))
    case 12, 13: return PredicateSyntax(.and(operands(depth: depth)))
    default: return PredicateSyntax(.or(operands(depth: depth)))
    }
  }

  mutating func operands(depth: Int) -> [PredicateSyntax] {
    (0..<Int.random(in: 2...4, using: &generator)).map { _ in predicate(depth: depth + 1) }
  }

  package mutating func comparison(depth: Int) -> ComparisonSyntax {
    let op = generator.pick(ComparisonSyntax.Operator.allCases)
    var options: ComparisonSyntax.Options = []
    if op.acceptsOptions, generator.chance(0.3) {
      options = ComparisonSyntax.Options(rawValue: UInt8.random(in: 1...15, using: &generator))
    }
    let rhs: ExpressionSyntax
    if op == .between {
      switch Int.random(in: 0..<3, using: &generator) {
      case 0: rhs = ExpressionSyntax(.constant(.array([constant(depth: depth), constant(depth: depth)])))
      case 1: rhs = ExpressionSyntax(.aggregate([keyPath(), expression(depth: depth + 1)]))
      default: rhs = keyPath()
      }
    } else {
      rhs = expression(depth: depth + 1)
    }
    return ComparisonSyntax(
      quantifier: generator.pick(ComparisonSyntax.Quantifier.allCases),
      expression(depth: depth + 1), op, options: options, rhs)
  }

  // MARK: Expressions

  package mutating func expression(depth: Int) -> ExpressionSyntax {
    if depth >= maximumDepth {
      switch Int.random(in: 0..<4, using: &generator) {
      case 0: return ExpressionSyntax(.constant(constant(depth: depth)))
      case 1: return ExpressionSyntax(.evaluatedObject)
      case 2: return ExpressionSyntax(.variable(identifier()))
      default: return keyPath()
      }
    }
    let next = depth + 1
    switch Int.random(in: 0..<15, using: &generator) {
    case 0, 1: return ExpressionSyntax(.constant(constant(depth: depth)))
    case 2: return ExpressionSyntax(.evaluatedObject)
    case 3, 4: return keyPath()
    case 5: return ExpressionSyntax(.variable(identifier()))
    case 6:
      // A member's base is never SELF, a key path or another member: those
      // fold into one key path.
      var base = expression(depth: next)
      while isKeyPathLike(base) { base = ExpressionSyntax(.variable(identifier())) }
      return ExpressionSyntax(.member(base: base, keyPath: keyPathText()))
    case 7:
      let subscriptValue: ExpressionSyntax.Subscript =
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: .first
        case 1: .last
        case 2: .size
        default: .at(expression(depth: next))
        }
      return ExpressionSyntax(.index(base: expression(depth: next), subscriptValue))
    case 8:
      // An aggregate holds at least one non-constant element; else it is a
      // constant array.
      var elements = (0..<Int.random(in: 0...3, using: &generator)).map { _ in expression(depth: next) }
      elements.insert(keyPath(), at: Int.random(in: 0...elements.count, using: &generator))
      return ExpressionSyntax(.aggregate(elements))
    case 9: return ExpressionSyntax(.negation(expression(depth: next)))
    case 10:
      return ExpressionSyntax(
        .arithmetic(
          generator.pick(ExpressionSyntax.ArithmeticOperator.allCases), expression(depth: next),
          expression(depth: next)))
    case 11:
      let function = generator.pick(PredicateFunction.allCases)
      return ExpressionSyntax(
        .function(function, (0..<function.arity).map { _ in expression(depth: next) }))
    case 12:
      // Types that never fold, so the cast stays a cast.
      return ExpressionSyntax(
        .cast(expression(depth: next), type: generator.pick(["NSString", "Person", "NSDecimalNumber"])))
    case 13:
      return ExpressionSyntax(
        .subquery(expression(depth: next), variable: identifier(), predicate(depth: next)))
    default:
      return ExpressionSyntax(
        .ternary(predicate(depth: next), expression(depth: next), expression(depth: next)))
    }
  }

  func isKeyPathLike(_ expression: ExpressionSyntax) -> Bool {
    switch expression.kind {
    case .evaluatedObject, .keyPath, .member: true
    default: false
    }
  }

  mutating func keyPath() -> ExpressionSyntax {
    ExpressionSyntax(.keyPath(keyPathText()))
  }

  mutating func keyPathText() -> String {
    (0..<Int.random(in: 1...3, using: &generator)).map { _ in
      generator.chance(0.15)
        ? "@" + generator.pick(["count", "sum", "avg", "min", "max", "unionOfObjects"]) : identifier()
    }.joined(separator: ".")
  }

  /// An identifier; sometimes a reserved word, which prints with `#`.
  package mutating func identifier() -> String {
    if generator.chance(0.1) {
      return generator.pick(["size", "first", "IN", "like", "Self", "nil", "yes", "Any", "cast"])
    }
    let starts = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
    let rest = starts + Array("0123456789")
    var text = String(generator.pick(starts))
    for _ in 0..<Int.random(in: 0...8, using: &generator) { text.append(generator.pick(rest)) }
    return text
  }

  // MARK: Constants

  package mutating func constant(depth: Int) -> FilterValue {
    switch Int.random(in: 0..<(depth >= maximumDepth ? 9 : 12), using: &generator) {
    case 0: return .null
    case 1: return .bool(generator.chance(0.5))
    case 2: return .int(integer())
    case 3: return .double(real())
    case 4, 5: return .string(string())
    case 6: return .date(secondsSinceReferenceDate: generator.chance(0.5) ? Double(integer() % 1_000_000_000) : real())
    case 7: return .uuid(UInt128(generator.next()) << 64 | UInt128(generator.next()))
    case 8:
      return .data(
        (0..<Int.random(in: 0...6, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
    case 9: return .array((0..<Int.random(in: 0...3, using: &generator)).map { _ in constant(depth: depth + 1) })
    case 10: return .set(Set((0..<Int.random(in: 0...3, using: &generator)).map { _ in constant(depth: depth + 1) }))
    default:
      var record: [String: FilterValue] = [:]
      for _ in 0..<Int.random(in: 0...3, using: &generator) { record[string()] = constant(depth: depth + 1) }
      return .record(record)
    }
  }

  mutating func integer() -> Int64 {
    switch Int.random(in: 0..<4, using: &generator) {
    case 0: generator.pick([0, 1, -1, .max, .min, 255, -256])
    case 1: Int64(bitPattern: generator.next())
    default: Int64.random(in: -1000...1000, using: &generator)
    }
  }

  /// A double that is not NaN: simple decimals, extremes, infinities, or any
  /// finite bit pattern.
  mutating func real() -> Double {
    switch Int.random(in: 0..<4, using: &generator) {
    case 0:
      return generator.pick([
        0.0, -0.0, 0.5, -2.25, 1e300, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .infinity, -.infinity,
      ])
    case 1:
      var value = Double(bitPattern: generator.next())
      while !value.isFinite { value = Double(bitPattern: generator.next()) }
      return value
    default: return Double(Int.random(in: -100_000...100_000, using: &generator)) / 100
    }
  }

  /// A string with the characters that printing has to escape or keep.
  package mutating func string() -> String {
    let pieces: [String] = [
      "a", "Z", " ", "'", "\"", "\\", "\n", "\t", "\r", "\u{0}", "\u{7F}", "\u{1B}", "%@", "$x", "é",
      "e\u{301}", "Ω", "日本", "🏳️‍🌈", "\u{200B}", "*", "?", "AND", "#",
    ]
    return (0..<Int.random(in: 0...6, using: &generator)).map { _ in generator.pick(pieces) }.joined()
  }
}
