internal import Dispatch
internal import Foundation

/// The recursive-descent parser proper. One instance parses one text.
struct Parser {
  var lexer: PredicateLexer
  var token: PredicateToken
  let source: String
  let arguments: [FilterValue]
  var argumentIndex = 0
  var depth = 0
  let maximumDepth: Int
  /// The depth at which `enter()` leaves its fast path: the smaller of the
  /// limit and the nesting this stack is trusted with.
  let depthCheck: Int
  /// Set when the text nested deeper than this stack is trusted with, but
  /// not deeper than the limit: `PredicateParser` parses it again on a
  /// larger stack.
  private(set) var outgrewInlineDepth = false
  /// Whether `{…}` lists are parsed as constants first (see `parseAggregate`).
  var constantLists = ConstantLists.allowed
  /// Whether a chain of two operands gets an array of exactly two (see
  /// `PredicateParser.parse(_:arguments:maximumDepth:exactPairs:)`).
  var exactPairs = false
  /// The longest text parsed: what a ``SyntaxRange`` can hold, or less in
  /// tests.
  let maximumLength: Int

  enum ConstantLists {
    /// The next list may try to be constant.
    case allowed
    /// Within a list that is trying: every list must be constant.
    case attempting
    /// Within a list parsed again as expressions: no list tries.
    case disabled
  }

  init(
    bytes: UnsafeBufferPointer<UInt8>, source: String, arguments: [FilterValue], maximumDepth: Int, inlineDepth: Int,
    maximumLength: Int = SyntaxRange.maximumOffset
  ) {
    self.maximumLength = maximumLength
    lexer = PredicateLexer(bytes)
    token = lexer.next()
    self.source = source
    self.arguments = arguments
    self.maximumDepth = maximumDepth
    depthCheck = min(maximumDepth, inlineDepth)
  }

  mutating func advance() {
    token = lexer.next()
  }

  /// The token after the current one, without consuming anything.
  func peek() -> PredicateToken {
    var copy = lexer
    return copy.next()
  }

  /// Counts one level of nesting; balance with `depth -= 1`. Inlined: a
  /// comparison and an increment, the error built out of line.
  @inline(__always)
  mutating func enter() throws(PredicateParseError) {
    guard depth < depthCheck else { throw deeperThanChecked() }
    depth += 1
  }

  /// Past `depthCheck`: over the limit, or only over what this stack is
  /// trusted with (noted, so that the text is parsed again on a larger
  /// one). Either way the parse stops here.
  @inline(never)
  mutating func deeperThanChecked() -> PredicateParseError {
    if depth < maximumDepth { outgrewInlineDepth = true }
    return nestingTooDeep()
  }

  /// The error for text longer than `maximumLength`, at the character that
  /// the limit falls in (the first byte past it, or the start of the
  /// character it cuts).
  @inline(never)
  func textTooLong() -> PredicateParseError {
    var offset = maximumLength
    while offset > 0, lexer.bytes[offset] & 0xC0 == 0x80 { offset -= 1 }
    return error(
      .textTooLong,
      "the text is \(lexer.bytes.count) bytes long, more than the limit of \(maximumLength) bytes",
      at: SyntaxRange(offset, offset))
  }

  /// For a format with a specifier in quotes (`name == '%@'`, a classic
  /// slip): a hint that says the quoted specifier is literal text, with the
  /// format as it was probably meant, its quotes removed. Nil otherwise.
  @inline(never)
  func quotedSpecifierHint() -> String? {
    var scanner = PredicateLexer(lexer.bytes)
    var unquoted = ""
    var copied = 0
    var found = false
    while true {
      let token = scanner.next()
      if token.kind == .end { break }
      guard token.kind == .string || token.kind == .escapedString, token.end - token.start >= 4 else { continue }
      let inner = scanner.text(token.start + 1, token.end - 1)
      let letters = inner.dropFirst()
      guard inner.first == "%", letters.count <= 3,
        letters.allSatisfy({ $0 == "@" || ($0.isASCII && $0.isLetter) })
      else { continue }
      unquoted += scanner.text(copied, token.start) + inner
      copied = token.end
      found = true
    }
    guard found else { return nil }
    unquoted += scanner.text(copied, lexer.bytes.count)
    return "a specifier inside quotes is literal text, not a placeholder; without the quotes: \(unquoted)"
  }

  @inline(never)
  func nestingTooDeep() -> PredicateParseError {
    error(.nestingTooDeep, "nesting is deeper than the limit of \(maximumDepth) levels", at: token.range)
  }

  // MARK: - Predicates

  mutating func parseWholePredicate() throws(PredicateParseError) -> PredicateSyntax {
    guard lexer.bytes.count <= maximumLength else { throw textTooLong() }
    if token.kind == .end {
      throw error(
        .unexpectedToken, "expected predicate, found end of input", at: token.range,
        expected: ["predicate"], found: "end of input")
    }
    let predicate = try parseOr()
    guard token.kind == .end else {
      throw unexpected(["AND", "OR", "end of input"], suggesting: ["AND", "OR"])
    }
    guard argumentIndex == arguments.count else {
      throw error(
        .extraArguments,
        "too many arguments: the format uses \(argumentIndex), but \(arguments.count) were given",
        at: token.range, suggestion: quotedSpecifierHint())
    }
    return predicate
  }

  /// `or_pred`.
  mutating func parseOr() throws(PredicateParseError) -> PredicateSyntax {
    try parseOr(first: try parseAnd())
  }

  /// `or_pred` from its first operand, an already parsed `and_pred`.
  mutating func parseOr(first head: consuming PredicateSyntax) throws(PredicateParseError) -> PredicateSyntax {
    guard isOr(token.kind) else { return head }
    if exactPairs { return try parseChain(pairing: head, or: true) }
    let headRange = head.range
    var operands: [PredicateSyntax] = []
    operands.reserveCapacity(4)
    operands.append(head)
    while isOr(token.kind) {
      advance()
      operands.append(try parseAnd())
    }
    return PredicateSyntax(.or(operands), range: headRange.union(operands[operands.count - 1].range))
  }

  /// `and_pred`.
  mutating func parseAnd() throws(PredicateParseError) -> PredicateSyntax {
    try parseAnd(first: try parseNot())
  }

  /// `and_pred` from its first operand, an already parsed `not_pred`.
  mutating func parseAnd(first head: consuming PredicateSyntax) throws(PredicateParseError) -> PredicateSyntax {
    guard isAnd(token.kind) else { return head }
    if exactPairs { return try parseChain(pairing: head, or: false) }
    let headRange = head.range
    var operands: [PredicateSyntax] = []
    operands.reserveCapacity(4)
    operands.append(head)
    while isAnd(token.kind) {
      advance()
      operands.append(try parseNot())
    }
    return PredicateSyntax(.and(operands), range: headRange.union(operands[operands.count - 1].range))
  }

  /// `parseOr(first:)` or `parseAnd(first:)` for `exactPairs`, past the
  /// chain's first operator: a chain of two gets an array of two. Out of
  /// line, so that the common loops above test for no pair.
  @inline(never)
  mutating func parseChain(
    pairing head: consuming PredicateSyntax, or: Bool
  ) throws(PredicateParseError)
    -> PredicateSyntax
  {
    func continues(_ parser: Parser) -> Bool { or ? parser.isOr(parser.token.kind) : parser.isAnd(parser.token.kind) }
    let headRange = head.range
    advance()
    let second = try or ? parseAnd() : parseNot()
    var operands: [PredicateSyntax]
    if continues(self) {
      operands = []
      operands.reserveCapacity(4)
      operands.append(head)
      operands.append(second)
      repeat {
        advance()
        operands.append(try or ? parseAnd() : parseNot())
      } while continues(self)
    } else {
      operands = [head, second]
    }
    let range = headRange.union(operands[operands.count - 1].range)
    return PredicateSyntax(or ? .or(operands) : .and(operands), range: range)
  }

  func isOr(_ kind: PredicateToken.Kind) -> Bool { kind == .or || kind == .keyword(.or) }
  func isAnd(_ kind: PredicateToken.Kind) -> Bool { kind == .and || kind == .keyword(.and) }

  /// `not_pred`: NOT, a constant predicate, a parenthesised group or a
  /// comparison.
  mutating func parseNot() throws(PredicateParseError) -> PredicateSyntax {
    let start = token.start
    // Most comparisons start with a key: one test before the switch.
    if token.kind == .identifier {
      let key = token
      advance()
      // A key followed by a comparison operator is the whole left operand
      // (no operator extends an operand and also compares), which
      // `parseExpression` would find through `parsePrimary`.
      if let op = comparisonOperator(token.kind) {
        let lhs = ExpressionSyntax(.keyPath(lexer.tokenText(key.start, key.end)), range: key.range)
        return try parseComparison(op, quantifier: .direct, lhs: lhs, start: start)
      }
      var lhs = try parseIdentifierPrimary(after: key)
      if continuesOperand(token.kind) { lhs = try parseBinary(minimumPrecedence: 1, seed: lhs) }
      return try parseComparison(quantifier: .direct, lhs: lhs, start: start)
    }
    switch token.kind {
    case .not, .keyword(.not):
      return try parseNegation(start: start)
    case .leftParen:
      return try parseGroupedPredicate(start: start)
    default:
      return try parseOtherComparison(start: start)
    }
  }

  // The cases of `parseNot` that nest or are rare, out of line: inlined,
  // their temporaries would enlarge `parseNot`'s frame, which every level
  // of parentheses and `NOT` puts on the stack.

  /// `NOT p` or `!p`, at the `NOT`.
  @inline(never)
  mutating func parseNegation(start: Int) throws(PredicateParseError) -> PredicateSyntax {
    advance()
    try enter()
    let operand = try parseNot()
    depth -= 1
    return PredicateSyntax(.not(operand), range: SyntaxRange(start, operand.range.upperBound))
  }

  /// A parenthesised predicate, or a comparison whose left operand starts
  /// with a parenthesised expression, at the `(`.
  @inline(never)
  mutating func parseGroupedPredicate(start: Int) throws(PredicateParseError) -> PredicateSyntax {
    // The group moves out of its enum, rather than being copied.
    let group = try parseParenthesizedGroup()
    switch consume group {
    case .predicate(let predicate):
      return predicate
    case .expression(let expression):
      let lhs = try parseExpression(seed: consume expression)
      return try parseComparison(quantifier: .direct, lhs: lhs, start: start)
    }
  }

  /// A constant predicate, a quantified comparison, or a comparison whose
  /// left operand starts with anything but a key or `(`.
  @inline(never)
  mutating func parseOtherComparison(start: Int) throws(PredicateParseError) -> PredicateSyntax {
    switch token.kind {
    case .keyword(.truePredicate), .keyword(.falsePredicate):
      let value = token.kind == .keyword(.truePredicate)
      let range = token.range
      advance()
      return PredicateSyntax(.constant(value), range: range)
    case .keyword(.any), .keyword(.some), .keyword(.all), .keyword(.none):
      let quantifier: ComparisonSyntax.Quantifier =
        switch token.kind {
        case .keyword(.all): .all
        case .keyword(.none): .none
        default: .any
        }
      advance()
      let lhs = try parseExpression(seed: nil)
      return try parseComparison(quantifier: quantifier, lhs: lhs, start: start)
    case .keyword(.and), .keyword(.or):
      throw unexpected(["predicate"])
    case .keyword, .invalid:
      // Reserved words and bad tokens get their own messages from the
      // expression parser.
      let lhs = try parseExpression(seed: nil)
      return try parseComparison(quantifier: .direct, lhs: lhs, start: start)
    default:
      guard canStartExpression(token.kind) else { throw unexpected(["predicate"]) }
      let lhs = try parseExpression(seed: nil)
      return try parseComparison(quantifier: .direct, lhs: lhs, start: start)
    }
  }

  func canStartExpression(_ kind: PredicateToken.Kind) -> Bool {
    switch kind {
    case .integer, .real, .string, .escapedString, .variable, .formatSpecifier, .escapedIdentifier,
      .collectionOperator, .identifier, .leftBrace, .leftParen, .minus, .keyword:
      true
    default:
      false
    }
  }

  /// What a parenthesised group turned out to hold. A `(` where a predicate
  /// may start can open a predicate, `(a == 1 OR b == 2)`, or the first
  /// operand of a comparison, `(a + 1) * 2 == 4`; the parser reads the
  /// group first and decides from its content, so it never backtracks.
  enum GroupContent {
    case predicate(PredicateSyntax)
    case expression(ExpressionSyntax)
  }

  /// Parses `( content )` at the current `(`.
  mutating func parseParenthesizedGroup() throws(PredicateParseError) -> GroupContent {
    let start = token.start
    advance()
    try enter()
    let content = try parseGroupContent()
    guard token.kind == .rightParen else {
      // Not a closure over `content`: capturing it would copy the node.
      let expected =
        if case .predicate = content { ["AND", "OR", "')'"] } else { ["comparison operator", "')'"] }
      throw unexpected(expected, suggesting: ["AND", "OR"])
    }
    let range = SyntaxRange(start, token.end)
    advance()
    depth -= 1
    switch consume content {
    case .predicate(var predicate):
      predicate.range = range
      return .predicate(predicate)
    case .expression(var expression):
      expression.range = range
      return .expression(expression)
    }
  }

  /// The content of a group. Its cases are out of line: inlined, their
  /// temporaries would enlarge the frame that every level of nested
  /// parentheses puts on the stack (with `parseParenthesizedGroup`'s).
  mutating func parseGroupContent() throws(PredicateParseError) -> GroupContent {
    switch token.kind {
    case .leftParen:
      return try parseNestedGroupContent()
    case .not, .keyword(.not), .keyword(.truePredicate), .keyword(.falsePredicate),
      .keyword(.any), .keyword(.some), .keyword(.all), .keyword(.none):
      return try parsePredicateGroupContent()
    default:
      return try parseExpressionGroupContent()
    }
  }

  /// A group's content that starts with another group.
  @inline(never)
  mutating func parseNestedGroupContent() throws(PredicateParseError) -> GroupContent {
    let group = try parseParenthesizedGroup()
    switch consume group {
    case .predicate(let predicate):
      return .predicate(try parseOr(first: try parseAnd(first: predicate)))
    case .expression(let primary):
      return try continueGroup(with: try parseExpression(seed: primary))
    }
  }

  /// A group's content that starts with a predicate-only token.
  @inline(never)
  mutating func parsePredicateGroupContent() throws(PredicateParseError) -> GroupContent {
    .predicate(try parseOr())
  }

  /// A group's content that starts with an expression.
  @inline(never)
  mutating func parseExpressionGroupContent() throws(PredicateParseError) -> GroupContent {
    try continueGroup(with: try parseExpression(seed: nil))
  }

  /// After a complete expression inside a group: either the group closes
  /// (it was an expression) or a comparison follows (it was a predicate).
  mutating func continueGroup(
    with expression: consuming ExpressionSyntax
  ) throws(PredicateParseError)
    -> GroupContent
  {
    if token.kind == .rightParen { return .expression(expression) }
    let start = expression.range.lowerBound
    let comparison = try parseComparison(quantifier: .direct, lhs: expression, start: start)
    return .predicate(try parseOr(first: try parseAnd(first: consume comparison)))
  }
}
