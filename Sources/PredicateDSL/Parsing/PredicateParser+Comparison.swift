extension Parser {
  /// The comparison operator a token spells, if any.
  @inline(__always)
  func comparisonOperator(_ kind: PredicateToken.Kind) -> ComparisonSyntax.Operator? {
    switch kind {
    case .equal: .equal
    case .notEqual: .notEqual
    case .less: .less
    case .lessOrEqual: .lessOrEqual
    case .greater: .greater
    case .greaterOrEqual: .greaterOrEqual
    case .keyword(.beginsWith): .beginsWith
    case .keyword(.endsWith): .endsWith
    case .keyword(.contains): .contains
    case .keyword(.like): .like
    case .keyword(.matches): .matches
    case .keyword(.in): .in
    case .keyword(.between): .between
    case .keyword(.utiConformsTo): .utiConformsTo
    case .keyword(.utiEquals): .utiEquals
    default: nil
    }
  }

  static let operatorWords = [
    "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "IN", "BETWEEN",
  ]

  /// Operators of other languages, and what to write instead.
  static let operatorAliases: [String: String] = [
    "STARTSWITH": "BEGINSWITH", "HASPREFIX": "BEGINSWITH", "HASSUFFIX": "ENDSWITH",
    "EQUALS": "==", "EQ": "==", "IS": "==", "NE": "!=", "LT": "<", "LE": "<=", "GT": ">",
    "GE": ">=", "REGEXP": "MATCHES", "ILIKE": "LIKE[c]",
  ]

  /// The rest of a comparison after its left operand: operator, options,
  /// right operand.
  mutating func parseComparison(
    quantifier: ComparisonSyntax.Quantifier, lhs: consuming ExpressionSyntax, start: Int
  ) throws(PredicateParseError) -> PredicateSyntax {
    guard let op = comparisonOperator(token.kind) else {
      throw missingOperator(after: lhs, quantified: quantifier != .direct)
    }
    return try parseComparison(op, quantifier: quantifier, lhs: lhs, start: start)
  }

  /// `parseComparison` at its operator, `op`, the current token.
  mutating func parseComparison(
    _ op: ComparisonSyntax.Operator, quantifier: ComparisonSyntax.Quantifier,
    lhs: consuming ExpressionSyntax, start: Int
  ) throws(PredicateParseError) -> PredicateSyntax {
    advance()
    // `Options(rawValue:)`, not `[]`: the array literal goes through the
    // generic SetAlgebra initializer, a large share of a whole parse.
    var options = ComparisonSyntax.Options(rawValue: 0)
    if token.kind == .leftBracket {
      options = try parseOptions(for: op)
    }
    // Most right operands are one literal: its value straight into the
    // node, then `parseExpression`'s test for what may extend it.
    var rhs: ExpressionSyntax
    switch token.kind {
    case .integer, .real, .string, .escapedString:
      let range = token.range
      rhs = ExpressionSyntax(.constant(try parseLiteralValue()), range: range)
      if continuesOperand(token.kind) { rhs = try parseBinary(minimumPrecedence: 1, seed: rhs) }
    default:
      rhs = try parseExpression(seed: nil)
    }
    if op == .between { try checkBetweenBounds(rhs) }
    // What follows a comparison is mostly AND, OR or the end; anything
    // else may be a second operator.
    if !isAnd(token.kind), !isOr(token.kind), token.kind != .end, comparisonOperator(token.kind) != nil {
      throw error(
        .chainedComparison,
        "comparisons cannot be chained; combine them with AND, as in 'a < b AND b < c'",
        at: token.range, expected: ["AND", "OR"], found: describe(token))
    }
    let comparison = ComparisonSyntax(
      quantifier: quantifier, lhs, op, options: options, rhs)
    return PredicateSyntax(.comparison(comparison), range: SyntaxRange(start, rhs.range.upperBound))
  }

  /// The error for a left operand with no operator after it, with the most
  /// useful hint the context allows.
  func missingOperator(after lhs: ExpressionSyntax, quantified: Bool) -> PredicateParseError {
    let expected = ["comparison operator"]
    switch token.kind {
    case .identifier:
      let word = lexer.text(token.start, token.end)
      if let guess = Self.operatorAliases[word.uppercased()]
        ?? Self.closest(to: word, among: Self.operatorWords)
      {
        return error(
          .unknownOperator, "unknown operator '\(word)'", at: token.range, expected: expected,
          found: describe(token), suggestion: "did you mean '\(guess)'?")
      }
    case .keyword(.not):
      return error(
        .unexpectedToken, "expected comparison operator, found 'NOT'", at: token.range,
        expected: expected, found: describe(token),
        suggestion: "negate the whole comparison instead: NOT (a IN b)")
    case .assign:
      return error(
        .unsupported, "assignment ':=' is not supported", at: token.range, expected: expected,
        found: describe(token))
    default:
      break
    }
    // `ANYY tags == 1`, `TRUEPREDICAT`: the "key path" was a misspelt keyword.
    if !quantified, case .keyPath(let path) = lhs.kind, !path.contains("."),
      let guess = Self.closest(
        to: path, among: ["ANY", "ALL", "NONE", "SOME", "NOT", "TRUEPREDICATE", "FALSEPREDICATE"])
    {
      var error = unexpected(expected)
      error.suggestion = "did you mean '\(guess)' instead of '\(path)'?"
      return error
    }
    return unexpected(expected)
  }

  /// `[c]`, `[cd]`, `[n]`…: the letters c, d, n and l in any order, each at
  /// most once, case-insensitively.
  mutating func parseOptions(
    for op: ComparisonSyntax.Operator
  ) throws(PredicateParseError)
    -> ComparisonSyntax.Options
  {
    let open = token
    advance()
    guard op.acceptsOptions else {
      throw error(
        .invalidOptions, "BETWEEN takes no options", at: SyntaxRange(open.start, token.end))
    }
    switch token.kind {
    case .identifier, .keyword:
      break
    default:
      throw unexpected(["option letters c, d, n or l"])
    }
    var options = ComparisonSyntax.Options(rawValue: 0)
    // The letters straight from the source bytes (an identifier is ASCII),
    // without making a string of them.
    for index in token.start..<token.end {
      let letter = lexer.bytes[index]
      let offset = index - token.start
      let option: ComparisonSyntax.Options
      switch letter | 0x20 {
      case UInt8(ascii: "c"): option = .caseInsensitive
      case UInt8(ascii: "d"): option = .diacriticInsensitive
      case UInt8(ascii: "n"): option = .normalized
      case UInt8(ascii: "l"): option = .localeSensitive
      default:
        throw error(
          .invalidOptions,
          "unknown comparison option '\(Character(Unicode.Scalar(letter)))'; the options are c, d, n and l",
          at: SyntaxRange(token.start + offset, token.start + offset + 1))
      }
      guard options.rawValue & option.rawValue == 0 else {
        throw error(
          .invalidOptions, "comparison option '\(Character(Unicode.Scalar(letter)))' is repeated",
          at: SyntaxRange(token.start + offset, token.start + offset + 1))
      }
      options.rawValue |= option.rawValue
    }
    advance()
    guard token.kind == .rightBracket else { throw unexpected(["']'"]) }
    advance()
    return options
  }

  /// `BETWEEN` needs two bounds; say so now when the right side is literal.
  func checkBetweenBounds(_ rhs: ExpressionSyntax) throws(PredicateParseError) {
    let found: String
    switch rhs.kind {
    case .constant(.array(let bounds)) where bounds.count != 2:
      found = "\(bounds.count) value\(bounds.count == 1 ? "" : "s")"
    case .aggregate(let bounds) where bounds.count != 2:
      found = "\(bounds.count) values"
    case .constant(let value):
      if case .array = value { return }
      found = value.typeName
    default:
      return
    }
    throw error(
      .betweenBounds, "BETWEEN needs two bounds {lower, upper}, found \(found)", at: rhs.range)
  }
}
