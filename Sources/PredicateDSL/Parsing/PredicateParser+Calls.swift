// The parser's calls and bracketed forms: argument lists, functions, CAST,
// SUBQUERY, TERNARY and aggregates.

extension Parser {
  /// The parenthesised, comma-separated arguments of a call, from the `(`.
  mutating func parseArguments() throws(PredicateParseError)
    -> (arguments: [ExpressionSyntax], end: Int)
  {
    try parseExpressionList(closer: .rightParen, closerText: "')'")
  }

  /// Comma-separated expressions from the opening token (current) to
  /// `closer`, one level of nesting deeper.
  mutating func parseExpressionList(
    closer: PredicateToken.Kind, closerText: String
  )
    throws(PredicateParseError) -> ([ExpressionSyntax], end: Int)
  {
    advance()
    try enter()
    var elements: [ExpressionSyntax] = []
    elements.reserveCapacity(4)
    if token.kind != closer {
      elements.append(try parseExpression(seed: nil))
      while token.kind == .comma {
        advance()
        elements.append(try parseExpression(seed: nil))
      }
    }
    guard token.kind == closer else { throw unexpected(["','", closerText]) }
    let end = token.end
    advance()
    depth -= 1
    return (elements, end)
  }

  mutating func parseCall(
    _ function: PredicateFunction, start: PredicateToken
  )
    throws(PredicateParseError) -> ExpressionSyntax
  {
    let (arguments, end) = try parseArguments()
    guard arguments.count == function.arity else {
      throw error(
        .wrongArgumentCount,
        "function '\(function.shortName)' takes \(Self.count(function.arity, "argument")), but \(arguments.count) \(arguments.count == 1 ? "was" : "were") given",
        at: SyntaxRange(start.start, end))
    }
    return ExpressionSyntax(.function(function, arguments), range: SyntaxRange(start.start, end))
  }

  /// `CAST(value, "Type")`, folded into a constant where it names one.
  mutating func parseCast() throws(PredicateParseError) -> ExpressionSyntax {
    let start = token
    advance()
    guard token.kind == .leftParen else { throw unexpected(["'('"]) }
    let (arguments, end) = try parseArguments()
    let range = SyntaxRange(start.start, end)
    guard arguments.count == 2 else {
      throw error(
        .wrongArgumentCount,
        "CAST takes a value and a type name, but \(Self.count(arguments.count, "argument")) \(arguments.count == 1 ? "was" : "were") given",
        at: range)
    }
    guard case .constant(.string(let type)) = arguments[1].kind else {
      throw error(
        .unexpectedToken, "CAST needs a type name string as its second argument, such as \"NSDate\"",
        at: arguments[1].range)
    }
    return .cast(arguments[0], to: type, range: range)
  }

  /// `SUBQUERY(collection, $variable, predicate)`.
  mutating func parseSubquery() throws(PredicateParseError) -> ExpressionSyntax {
    let start = token
    advance()
    guard token.kind == .leftParen else { throw unexpected(["'('"]) }
    advance()
    try enter()
    let collection = try parseExpression(seed: nil)
    guard token.kind == .comma else { throw unexpected(["','"]) }
    advance()
    guard token.kind == .variable else { throw unexpected(["variable such as $x"]) }
    let variable = lexer.text(token.start + 1, token.end)
    advance()
    guard token.kind == .comma else { throw unexpected(["','"]) }
    advance()
    let predicate = try parseOr()
    guard token.kind == .rightParen else { throw unexpected(["AND", "OR", "')'"]) }
    let end = token.end
    advance()
    depth -= 1
    return ExpressionSyntax(
      .subquery(collection, variable: variable, predicate), range: SyntaxRange(start.start, end))
  }

  /// `TERNARY(condition, then, else)`, from the `(`.
  mutating func parseTernary(start: PredicateToken) throws(PredicateParseError) -> ExpressionSyntax {
    advance()
    try enter()
    let condition = try parseOr()
    guard token.kind == .comma else { throw unexpected(["AND", "OR", "','"]) }
    advance()
    let whenTrue = try parseExpression(seed: nil)
    guard token.kind == .comma else { throw unexpected(["','"]) }
    advance()
    let whenFalse = try parseExpression(seed: nil)
    guard token.kind == .rightParen else { throw unexpected(["')'"]) }
    let end = token.end
    advance()
    depth -= 1
    return ExpressionSyntax(
      .ternary(condition, whenTrue, whenFalse), range: SyntaxRange(start.start, end))
  }

  /// `{a, b, …}`; folded into a constant array when every element is constant.
  ///
  /// Most lists are constants, so an outermost list first tries to put its
  /// values straight into the array (without a list of syntax nodes to
  /// fold). At the first element that is not a constant, at any depth
  /// within, the attempt unwinds to the outermost list, which goes back to
  /// its brace and parses everything within as expressions. Parsing is
  /// deterministic, so the elements and any error are the same either way;
  /// each list is parsed at most twice, so parsing stays linear.
  mutating func parseAggregate() throws(PredicateParseError) -> ExpressionSyntax {
    switch constantLists {
    case .disabled:
      return try parseExpressionAggregate()
    case .attempting:
      return try parseConstantAggregate()
    case .allowed:
      // Only these change while parsing; the rest of the parser (its
      // source and arguments) is not copied, so saving costs no retains.
      let (lexerAtBrace, brace, argumentsUsed, depthAtBrace) = (lexer, token, argumentIndex, depth)
      constantLists = .attempting
      // Back to `.allowed` on every way out, errors included.
      defer { constantLists = .allowed }
      do {
        return try parseConstantAggregate()
      } catch  where error.code == .notConstant {
        (lexer, token, argumentIndex, depth) = (lexerAtBrace, brace, argumentsUsed, depthAtBrace)
        constantLists = .disabled
        return try parseExpressionAggregate()
      }
    }
  }

  private mutating func parseExpressionAggregate() throws(PredicateParseError) -> ExpressionSyntax {
    let start = token.start
    let (elements, end) = try parseExpressionList(closer: .rightBrace, closerText: "'}'")
    return .aggregate(elements, range: SyntaxRange(start, end))
  }

  /// A list whose elements must all be constants; throws `.notConstant`
  /// (caught by the outermost list) at the first that is not.
  private mutating func parseConstantAggregate() throws(PredicateParseError) -> ExpressionSyntax {
    let start = token.start
    advance()
    try enter()
    var values: [FilterValue] = []
    values.reserveCapacity(4)
    if token.kind != .rightBrace {
      while true {
        let value: FilterValue
        switch token.kind {
        case .integer, .real, .string, .escapedString:
          // Most elements are one literal: its value goes straight into the
          // array, without a syntax node. The steps are `parseExpression`'s.
          let literal = token
          let literalValue = try parseLiteralValue()
          guard continuesOperand(token.kind) else {
            value = literalValue
            break
          }
          value = try constantValue(
            of: try parseBinary(
              minimumPrecedence: 1, seed: ExpressionSyntax(.constant(literalValue), range: literal.range)))
        default:
          value = try constantValue(of: try parseExpression(seed: nil))
        }
        values.append(consume value)
        guard token.kind == .comma else { break }
        advance()
      }
    }
    guard token.kind == .rightBrace else { throw unexpected(["','", "'}'"]) }
    let end = token.end
    advance()
    depth -= 1
    return ExpressionSyntax(.constant(.array(values)), range: SyntaxRange(start, end))
  }

  /// The value of a constant element of a list that is trying to be
  /// constant; for any other element, the `.notConstant` signal.
  private func constantValue(of element: consuming ExpressionSyntax) throws(PredicateParseError) -> FilterValue {
    guard case .constant(let value) = element.kind else {
      // Without locating it in the source: the signal is never shown, and
      // locating it would cost a scan of the text before it.
      throw PredicateParseError(
        code: .notConstant, message: "", location: .init(utf8Offset: 0, line: 1, column: 1), length: 0,
        expected: [], found: nil, suggestion: nil, source: "")
    }
    return value
  }

  /// Function names of other languages, and the name to use instead.
  static let functionAliases: [String: String] = [
    "avg": "average", "mean": "average", "len": "length", "upper": "uppercase",
    "lower": "lowercase", "ceil": "ceiling", "power": "raise", "pow": "raise", "mod": "modulus",
    "stdev": "stddev",
  ]

  /// `n things`, singular for one.
  static func count(_ number: Int, _ noun: String) -> String {
    "\(number) \(noun)\(number == 1 ? "" : "s")"
  }
}
