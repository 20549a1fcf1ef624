extension Parser {
  func arithmeticOperator(_ kind: PredicateToken.Kind) -> ExpressionSyntax.ArithmeticOperator? {
    switch kind {
    case .plus: .add
    case .minus: .subtract
    case .star: .multiply
    case .slash: .divide
    case .power: .power
    case .ampersand: .bitwiseAnd
    case .pipe: .bitwiseOr
    case .caret: .bitwiseXor
    case .shiftLeft: .shiftLeft
    case .shiftRight: .shiftRight
    default: nil
    }
  }

  /// An expression. `seed`, when given, is an already parsed primary (a
  /// parenthesised expression read by the group logic) to continue from.
  mutating func parseExpression(
    seed: consuming ExpressionSyntax?
  ) throws(PredicateParseError)
    -> ExpressionSyntax
  {
    guard seed == nil, token.kind != .minus else { return try parseBinary(minimumPrecedence: 1, seed: consume seed) }
    // Most operands are one primary, a key or a literal: when no postfix
    // step or arithmetic operator follows it, it is the whole expression,
    // without the walk through every precedence level.
    let primary = try parsePrimary()
    if !continuesOperand(token.kind) { return primary }
    return try parseBinary(minimumPrecedence: 1, seed: primary)
  }

  /// Whether a token after a primary extends it: a key path step, a
  /// subscript or an arithmetic operator.
  func continuesOperand(_ kind: PredicateToken.Kind) -> Bool {
    kind == .dot || kind == .leftBracket || arithmeticOperator(kind) != nil
  }

  /// Precedence climbing over the arithmetic levels; its recursion is
  /// bounded by the number of levels, not by the input. Each operation of a
  /// chain nests the tree one level deeper (`a + b + c` is `(a + b) + c`),
  /// so each counts toward the depth limit: printing, comparing and freeing
  /// a tree recurse over its depth.
  mutating func parseBinary(
    minimumPrecedence: Int, seed: consuming ExpressionSyntax?
  )
    throws(PredicateParseError) -> ExpressionSyntax
  {
    var lhs: ExpressionSyntax
    switch consume seed {
    case .some(let primary): lhs = try parsePostfix(primary)
    case .none: lhs = try parseUnary()
    }
    let outerDepth = depth
    defer { depth = outerDepth }
    while let op = arithmeticOperator(token.kind), op.precedence >= minimumPrecedence {
      try enter()
      advance()
      let rhs: ExpressionSyntax
      if token.kind == .minus {
        rhs = try parseBinary(minimumPrecedence: op.precedence + 1, seed: nil)
      } else {
        // The right operand's primary; when nothing that binds tighter
        // than `op` follows it, it is the whole operand, which the
        // recursion would return after finding as much.
        let primary = try parsePrimary()
        if token.kind == .dot || token.kind == .leftBracket
          || (arithmeticOperator(token.kind).map { $0.precedence > op.precedence } ?? false)
        {
          rhs = try parseBinary(minimumPrecedence: op.precedence + 1, seed: primary)
        } else {
          rhs = primary
        }
      }
      lhs = ExpressionSyntax(.arithmetic(op, lhs, rhs), range: lhs.range.union(rhs.range))
    }
    return lhs
  }

  /// `-operand` or a postfix expression. A minus written directly before a
  /// number literal is part of the number.
  mutating func parseUnary() throws(PredicateParseError) -> ExpressionSyntax {
    guard token.kind == .minus else { return try parsePostfix(try parsePrimary()) }
    let start = token.start
    advance()
    if token.kind == .integer, lexer.integerMagnitude(token) == UInt64(Int64.max) + 1 {
      // The one integer whose magnitude only fits when negative.
      let literal = ExpressionSyntax(.constant(.int(.min)), range: SyntaxRange(start, token.end))
      advance()
      return try parsePostfix(literal)
    }
    let numberStart = token.start
    let isNumber = token.kind == .integer || token.kind == .real
    try enter()
    let operand = try parseUnary()
    depth -= 1
    let range = SyntaxRange(start, operand.range.upperBound)
    if isNumber, operand.range.lowerBound == numberStart, case .constant(let value) = operand.kind {
      switch value {
      case .int(let number): return ExpressionSyntax(.constant(.int(-number)), range: range)
      case .double(let number): return ExpressionSyntax(.constant(.double(-number)), range: range)
      default: break
      }
    }
    return ExpressionSyntax(.negation(operand), range: range)
  }

  /// Key path steps and subscripts after a primary. Like arithmetic
  /// chains, each step nests the tree and counts toward the depth limit.
  mutating func parsePostfix(
    _ primary: consuming ExpressionSyntax
  ) throws(PredicateParseError)
    -> ExpressionSyntax
  {
    var expression = primary
    let outerDepth = depth
    defer { depth = outerDepth }
    while true {
      if token.kind == .dot || token.kind == .leftBracket { try enter() }
      switch token.kind {
      case .dot:
        // Collect the whole run of `.key` steps first: joining them one at
        // a time would copy the path at every step, quadratic in its length.
        var path = ""
        var end = token.end
        repeat {
          advance()
          let (component, componentEnd) = try parseKeyPathComponent()
          if !path.isEmpty { path += "." }
          path += component
          end = componentEnd
        } while token.kind == .dot
        expression = .member(expression, path, range: SyntaxRange(expression.range.lowerBound, end))
      case .leftBracket:
        expression = try parseSubscript(of: expression)
      default:
        return expression
      }
    }
  }

  /// One key after a `.`: a key, `#key`, `@operator` or `%K`.
  mutating func parseKeyPathComponent() throws(PredicateParseError) -> (String, Int) {
    let component = token
    switch token.kind {
    case .identifier:
      advance()
      return (lexer.text(component.start, component.end), component.end)
    case .escapedIdentifier:
      advance()
      return (lexer.text(component.start + 1, component.end), component.end)
    case .collectionOperator:
      let name = try collectionOperator(component)
      advance()
      return (name, component.end)
    case .formatSpecifier:
      guard case .keyPath(let path) = try substituteArgument().kind else {
        throw error(
          .unexpectedToken, "only '%K' can follow '.' in a key path", at: component.range,
          expected: ["key"], found: describe(component))
      }
      return (path, component.end)
    case .keyword(.self) where lexer.text(component.start, component.end) == "self":
      // `x.@max.self`, as Apple writes it: key-value coding's `self`, the
      // value itself (printed back as `#self`).
      advance()
      return ("self", component.end)
    case .keyword:
      throw reservedWordAsKey()
    case .variable:
      throw error(
        .unsupported, "a variable cannot follow '.' in a key path", at: token.range,
        expected: ["key"], found: describe(token))
    default:
      throw unexpected(["key"])
    }
  }

  /// `[FIRST]`, `[LAST]`, `[SIZE]` or `[expression]` after `base`.
  mutating func parseSubscript(
    of base: consuming ExpressionSyntax
  ) throws(PredicateParseError)
    -> ExpressionSyntax
  {
    // The caller, `parsePostfix`, counted this level of nesting.
    advance()
    let subscriptValue: ExpressionSyntax.Subscript
    switch token.kind {
    case .keyword(.first) where peek().kind == .rightBracket:
      advance()
      subscriptValue = .first
    case .keyword(.last) where peek().kind == .rightBracket:
      advance()
      subscriptValue = .last
    case .keyword(.size) where peek().kind == .rightBracket:
      advance()
      subscriptValue = .size
    default:
      subscriptValue = .at(try parseExpression(seed: nil))
    }
    guard token.kind == .rightBracket else { throw unexpected(["']'"]) }
    let end = token.end
    advance()
    let range = SyntaxRange(base.range.lowerBound, end)
    return ExpressionSyntax(.index(base: base, subscriptValue), range: range)
  }

  /// The value of the current token, a number or string literal, which
  /// it consumes. Call it only on a literal token.
  @inline(__always)
  mutating func parseLiteralValue() throws(PredicateParseError) -> FilterValue {
    switch token.kind {
    case .integer:
      guard let magnitude = lexer.integerMagnitude(token), magnitude <= UInt64(Int64.max) else {
        throw error(
          .numberOutOfRange,
          "integer \(lexer.text(token.start, token.end)) does not fit in 64 bits", at: token.range)
      }
      advance()
      return .int(Int64(magnitude))
    case .real:
      let text = lexer.text(token.start, token.end)
      guard let value = Double(text), value.isFinite else {
        throw error(.numberOutOfRange, "number \(text) is out of the range of a double", at: token.range)
      }
      advance()
      return .double(value)
    case .string:
      // No escapes: the content is the string.
      let value = lexer.tokenText(token.start + 1, token.end - 1)
      advance()
      return .string(value)
    case .escapedString:
      let value: String
      do {
        value = try lexer.decodeString(token)
      } catch {
        throw self.error(.invalidEscape, error.message, at: error.range)
      }
      advance()
      return .string(value)
    default:
      // Its two callers switch on the literal kinds above first.
      preconditionFailure("parseLiteralValue() called on a \(token.kind) token, which is not a literal")
    }
  }

  /// A primary: a literal, a key, a variable, a format argument, an
  /// aggregate, a call, a parenthesised expression.
  mutating func parsePrimary() throws(PredicateParseError) -> ExpressionSyntax {
    let start = token
    switch token.kind {
    case .integer, .real, .string, .escapedString:
      return ExpressionSyntax(.constant(try parseLiteralValue()), range: start.range)
    case .keyword(.null):
      advance()
      return ExpressionSyntax(.constant(.null), range: start.range)
    case .keyword(.true), .keyword(.false):
      advance()
      return ExpressionSyntax(.constant(.bool(start.kind == .keyword(.true))), range: start.range)
    case .keyword(.self):
      advance()
      return ExpressionSyntax(.evaluatedObject, range: start.range)
    case .keyword(.cast):
      return try parseCast()
    case .keyword(.subquery):
      return try parseSubquery()
    case .variable:
      advance()
      return ExpressionSyntax(
        .variable(lexer.text(start.start + 1, start.end)), range: start.range)
    case .formatSpecifier:
      return try substituteArgument()
    case .escapedIdentifier:
      advance()
      return ExpressionSyntax(.keyPath(lexer.text(start.start + 1, start.end)), range: start.range)
    case .collectionOperator:
      let name = try collectionOperator(token)
      advance()
      return ExpressionSyntax(.keyPath(name), range: start.range)
    case .identifier:
      return try parseIdentifierPrimary()
    case .leftBrace:
      return try parseAggregate()
    case .leftParen:
      advance()
      try enter()
      var inner = try parseExpression(seed: nil)
      guard token.kind == .rightParen else { throw unexpected(["')'"]) }
      inner.range = SyntaxRange(start.start, token.end)
      advance()
      depth -= 1
      return inner
    case .keyword(.and), .keyword(.or), .keyword(.not), .keyword(.truePredicate),
      .keyword(.falsePredicate), .keyword(.any), .keyword(.some), .keyword(.all),
      .keyword(.none):
      throw unexpected(["expression"])
    case .keyword:
      throw reservedWordAsKey()
    default:
      throw unexpected(["expression"])
    }
  }

  /// A key, or a function call: `name(…)` or `selector:with:(…)`.
  mutating func parseIdentifierPrimary() throws(PredicateParseError) -> ExpressionSyntax {
    let start = token
    advance()
    return try parseIdentifierPrimary(after: start)
  }

  /// `parseIdentifierPrimary` once past its identifier, `start`.
  mutating func parseIdentifierPrimary(
    after start: PredicateToken
  ) throws(PredicateParseError)
    -> ExpressionSyntax
  {
    // The next token decides: `(` makes a call, `:` a selector (`:=` is
    // not one), an adjacent `.` a key path read in one piece, anything else
    // leaves a key, already past it.
    if token.kind == .dot, token.start == start.end {
      return try parseAdjacentKeyPath(from: start)
    }
    let name = lexer.tokenText(start.start, start.end)
    if token.kind == .leftParen {
      switch name.uppercased() {
      case "TERNARY": return try parseTernary(start: start)
      case "FUNCTION":
        throw error(
          .unsupported, "FUNCTION(…) calls Objective-C methods and is not supported",
          at: start.range)
      default:
        guard let function = PredicateFunction(name: name) else {
          throw error(
            .unknownFunction, "unknown function '\(name)'", at: start.range,
            suggestion: (Self.functionAliases[name.lowercased()]
              ?? Self.closest(to: name, among: PredicateFunction.allCases.map(\.shortName)))
              .map { "did you mean '\($0)'?" })
        }
        return try parseCall(function, start: start)
      }
    }
    if token.kind == .colon {
      var selector = name + ":"
      advance()
      while token.kind == .identifier, peek().kind == .colon {
        selector += lexer.text(token.start, token.end) + ":"
        advance()
        advance()
      }
      guard token.kind == .leftParen else { throw unexpected(["'('", "selector part"]) }
      guard let function = PredicateFunction(rawValue: selector) else {
        throw error(
          .unknownFunction, "unknown function '\(selector)'",
          at: SyntaxRange(start.start, token.start),
          suggestion: Self.closest(to: selector, among: PredicateFunction.allCases.map(\.selector))
            .map { "did you mean '\($0)'?" })
      }
      return try parseCall(function, start: start)
    }
    return ExpressionSyntax(.keyPath(name), range: start.range)
  }

  /// A key path written without spaces or escapes, `address.city` or
  /// `tags.@count`, from its first key (`first`, already consumed) at the
  /// `.` that follows it: its text is the path, taken from the source in
  /// one piece instead of joined from its keys. Stops before the first
  /// step that is not an adjacent `.key` or `.@operator` (a known one), and
  /// `parsePostfix` goes on from there, so the tree and any error are the
  /// ones `parsePostfix` alone would give, nesting count included.
  mutating func parseAdjacentKeyPath(
    from first: PredicateToken
  ) throws(PredicateParseError)
    -> ExpressionSyntax
  {
    // `parsePostfix` counts a run of `.key` steps as one level of nesting,
    // checked at its first `.`.
    try enter()
    depth -= 1
    var end = first.end
    scan: while true {
      // `token` is a `.` that starts at `end`; look at what follows it.
      var probe = lexer
      let component = probe.next()
      guard component.start == token.end else { break }
      switch component.kind {
      case .identifier: break
      case .collectionOperator where isKnownCollectionOperator(component): break
      default: break scan
      }
      lexer = probe
      end = component.end
      advance()
      guard token.kind == .dot, token.start == end else { break }
    }
    let path = keyPath(from: first.start, to: end)
    switch token.kind {
    case .dot:
      // The run goes on with steps this route does not read: the same
      // level of nesting, which `parsePostfix` enters at this `.`.
      return try parsePostfix(path)
    case .leftBracket:
      // The run is over; `parsePostfix` would still count its level for
      // the steps after it.
      depth += 1
      defer { depth -= 1 }
      return try parsePostfix(path)
    default:
      return path
    }
  }

  /// The key path whose text is the source from `start` to `end`.
  private func keyPath(from start: Int, to end: Int) -> ExpressionSyntax {
    ExpressionSyntax(.keyPath(lexer.tokenText(start, end)), range: SyntaxRange(start, end))
  }
}
