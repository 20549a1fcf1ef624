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
